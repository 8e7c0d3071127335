//! Generates the `robot_msgs` package from `interfaces/robot_msgs/{msg,srv}`: the one step a crate
//! with its own message types needs. Cargo reruns it when a definition changes.

fn main() {
    if let Err(error) = zshm_rosidl::Builder::new()
        .package("robot_msgs", "interfaces/robot_msgs")
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
