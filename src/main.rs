//! The `akushu` binary: everything lives in the library; see `akushu --help`.

fn main() -> anyhow::Result<()> {
    akushu::cli::main()
}
