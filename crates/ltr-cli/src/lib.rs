//! The `ltr` command line.

/// Entry point of the `ltr` binary.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
