pub fn run() -> anyhow::Result<()> { anyhow::bail!("todo") }
