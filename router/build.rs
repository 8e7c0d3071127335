//! Generates the bench's own interface package, `zshm_bench` (`interfaces/zshm_bench/srv`):
//! the service sweep's `Blob`, whose response a server can loan.

fn main() {
    if let Err(error) = zshm_rosidl::Builder::new()
        .package("zshm_bench", "interfaces/zshm_bench")
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
