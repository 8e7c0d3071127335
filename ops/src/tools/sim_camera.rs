//! A simulated depth camera: the point clouds and images `zshm cam-pub` publishes, so latency
//! can be measured anywhere without Gazebo.
//!
//! The cloud has the layout of the workshop's Gazebo D435 cloud: `x`, `y`, `z` and `rgb` as
//! float32 at offsets 0, 4, 8 and 16, 24 bytes per point, 640 × 480 points (7 372 800 bytes of
//! data). The scene is a wall with a slow wave in front of which a ball moves, seen through a
//! pinhole camera, so consecutive clouds differ and look plausible in RViz.

use zshm::msgs::sensor_msgs::msg::{Image, PointCloud2, PointField};
use zshm::msgs::std_msgs::msg::Header;

/// Bytes per point of the default layout.
pub const POINT_STEP: usize = 24;

/// A camera of `width` × `height` pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimCamera {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl Default for SimCamera {
    /// The D435 depth stream of the workshop: 640 × 480.
    fn default() -> Self {
        Self {
            width: 640,
            height: 480,
        }
    }
}

impl SimCamera {
    /// Bytes of point data per cloud.
    pub fn cloud_data_len(&self) -> usize {
        self.width as usize * self.height as usize * POINT_STEP
    }

    /// Bytes of pixel data per RGB image.
    pub fn image_data_len(&self) -> usize {
        self.width as usize * self.height as usize * 3
    }

    /// Everything of a cloud but its data (for [`zshm::ros::Publisher::loan`]).
    pub fn cloud_shape(&self, frame_id: &str) -> PointCloud2 {
        PointCloud2 {
            header: Header {
                frame_id: frame_id.to_owned(),
                ..Default::default()
            },
            height: self.height,
            width: self.width,
            fields: vec![
                PointField::new("x", 0, PointField::FLOAT32),
                PointField::new("y", 4, PointField::FLOAT32),
                PointField::new("z", 8, PointField::FLOAT32),
                PointField::new("rgb", 16, PointField::FLOAT32),
            ],
            is_bigendian: false,
            point_step: POINT_STEP as u32,
            row_step: self.width * POINT_STEP as u32,
            data: Vec::new(),
            is_dense: true,
        }
    }

    /// Everything of an RGB image but its data.
    pub fn image_shape(&self, frame_id: &str) -> Image {
        Image {
            header: Header {
                frame_id: frame_id.to_owned(),
                ..Default::default()
            },
            height: self.height,
            width: self.width,
            encoding: "rgb8".into(),
            is_bigendian: 0,
            step: self.width * 3,
            data: Vec::new(),
        }
    }

    /// Writes the points of frame `frame` into `data` ([`cloud_data_len`](Self::cloud_data_len)
    /// bytes).
    pub fn fill_cloud(&self, frame: u64, data: &mut [u8]) {
        let (w, h) = (self.width as usize, self.height as usize);
        let focal = w as f32 * 0.9;
        let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
        let t = frame as f32 / 15.0;
        // The ball: centre in pixels and radius, moving left and right.
        let ball_u = cx + (w as f32 / 3.0) * t.sin();
        let (ball_v, ball_r) = (cy, h as f32 / 6.0);
        // The wave depends on the column only: one sine per column, not per point.
        let wall: Vec<f32> = (0..w).map(|u| 3.0 + 0.2 * (u as f32 * 0.02 + t).sin()).collect();
        for (v, row) in data.chunks_exact_mut(w * POINT_STEP).take(h).enumerate() {
            let dy = v as f32 - ball_v;
            for (u, point) in row.chunks_exact_mut(POINT_STEP).enumerate() {
                let dx = u as f32 - ball_u;
                let inside = dx * dx + dy * dy < ball_r * ball_r;
                let z = if inside { 1.5 } else { wall[u] };
                let x = (u as f32 - cx) * z / focal;
                let y = (v as f32 - cy) * z / focal;
                let rgb: u32 = if inside {
                    0x00e0_4020
                } else {
                    0x0020_0000 | ((u * 255 / w) as u32) << 8 | (v * 255 / h) as u32
                };
                point[0..4].copy_from_slice(&x.to_le_bytes());
                point[4..8].copy_from_slice(&y.to_le_bytes());
                point[8..12].copy_from_slice(&z.to_le_bytes());
                point[12..16].fill(0);
                point[16..20].copy_from_slice(&f32::from_bits(rgb).to_le_bytes());
                point[20..24].fill(0);
            }
        }
    }

    /// Writes the pixels of frame `frame` into `data` ([`image_data_len`](Self::image_data_len)
    /// bytes): a gradient that scrolls with the frame number.
    pub fn fill_image(&self, frame: u64, data: &mut [u8]) {
        let w = self.width as usize;
        for (v, row) in data.chunks_exact_mut(w * 3).enumerate() {
            for (u, pixel) in row.chunks_exact_mut(3).enumerate() {
                pixel[0] = (u as u64 + frame) as u8;
                pixel[1] = v as u8;
                pixel[2] = 128;
            }
        }
    }
}

/// What a camera counted: clouds published, how many through shared memory, and failures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CameraCounts {
    /// Clouds published.
    pub published: u64,
    /// Of which from the SHM pool.
    pub shm: u64,
    /// Clouds that could not be published.
    pub failures: u64,
}

/// The JSON summary `zshm cam-pub --json` prints at the end, read back by `zshm demo`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CameraSummary {
    /// What was published.
    pub counts: CameraCounts,
    /// The session's counters.
    pub stats: zshm::stats::StatsSnapshot,
    /// CPU seconds the camera process used.
    pub cpu_seconds: f64,
    /// The session's shared-memory status in words (`on (...)`, or `off, ...` with the reason
    /// and the fix), so a reader can say why clouds did not go through shared memory.
    #[serde(default)]
    pub shm_status: String,
    /// Clouds zenoh dropped instead of sending them, per receiving process (its zenoh id): the
    /// queue to that process stayed full. A KEEP_LAST publisher drops then rather than wait, as
    /// rmw_zenoh's do (`CongestionControl::Drop`); `publish` succeeded for each. Processes
    /// with none are left out.
    #[serde(default)]
    pub zenoh_dropped: std::collections::BTreeMap<String, u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use zshm::msgs::{LoanableMessage, Message};

    #[test]
    fn default_cloud_has_the_workshop_size() {
        let camera = SimCamera::default();
        assert_eq!(camera.cloud_data_len(), 7_372_800);
        let shape = camera.cloud_shape("camera_depth_optical_frame");
        assert!(shape.shape_len(camera.cloud_data_len()) > 7_372_800);
    }

    #[test]
    fn clouds_are_plausible_and_change_between_frames() {
        let camera = SimCamera {
            width: 64,
            height: 48,
        };
        let (mut a, mut b) = (vec![0; camera.cloud_data_len()], vec![0; camera.cloud_data_len()]);
        camera.fill_cloud(0, &mut a);
        camera.fill_cloud(10, &mut b);
        assert_ne!(a, b);
        let z = |data: &[u8], i: usize| {
            f32::from_le_bytes(data[i * POINT_STEP + 8..i * POINT_STEP + 12].try_into().unwrap())
        };
        assert!(
            (0..64 * 48).all(|i| (1.0..=3.5).contains(&z(&a, i))),
            "depths between 1 and 3.5 m"
        );
        let mut full = camera.cloud_shape("f");
        full.data = a;
        assert_eq!(PointCloud2::from_cdr(&full.to_cdr()).unwrap(), full);
    }
}
