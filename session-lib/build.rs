//! Generates zshm's message, service and action types from the interface packages zshm ships
//! (`rosidl/interfaces/`), into `$OUT_DIR/zshm_interfaces.rs`, which `src/msgs/mod.rs` includes.

fn main() {
    if let Err(error) = zshm_rosidl::Builder::for_zshm_itself().generate() {
        // A build script reports through its exit status; the message names file, line and fix.
        eprintln!("{error}");
        std::process::exit(1);
    }
}
