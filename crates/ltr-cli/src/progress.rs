//! Progress bars on a terminal; silence in CI and when stderr is redirected.

use std::io::IsTerminal;

/// Whether progress bars should be drawn.
#[allow(dead_code)]
pub fn enabled() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}
