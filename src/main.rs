//! The `ltr` command-line tool; everything lives in `ltr-cli`.

fn main() -> std::process::ExitCode {
    ltr_cli::main()
}
