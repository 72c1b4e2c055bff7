//! The daemon's settings: a TOML file and flags. The engine's settings are
//! docs/CONFIG.md's keys, in the file's `[engine]` table (handed to
//! `cuzk::engine::configure` as JSON) or in `CUZK_*` variables.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::{Limits, Listen};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `unix:///path/to.sock` or `host:port`.
    pub listen: Option<String>,
    /// The folder of the `.params` / `.vk` files (as FIL_PROOFS_PARAMETER_CACHE).
    pub parameter_cache: Option<PathBuf>,
    /// Whether a TCP address other hosts can reach is accepted (the
    /// service has no authentication).
    pub allow_remote: Option<bool>,
    /// Unfinished jobs of one proof kind the daemon takes (default
    /// `jobs::DEFAULT_MAX_UNFINISHED`); beyond it, RESOURCE_EXHAUSTED.
    pub max_unfinished_jobs: Option<usize>,
    /// Engine settings (docs/CONFIG.md).
    pub engine: Option<toml::Table>,
}

pub const USAGE: &str = "usage: cuzk-daemon [--config FILE.toml] [--listen unix:///path.sock | host:port] [--allow-remote] [--parameter-cache DIR]";

impl Config {
    /// The file named by `--config` (if any), then the other flags over it.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self> {
        let mut args = args.into_iter();
        let (mut config, mut listen, mut cache, mut remote) = (Config::default(), None, None, false);
        while let Some(flag) = args.next() {
            let mut value = || args.next().with_context(|| format!("{flag} needs a value\n{USAGE}"));
            match flag.as_str() {
                "--config" => {
                    let path = value()?;
                    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
                    config = toml::from_str(&text).with_context(|| format!("{path} is not a cuzk-daemon configuration"))?;
                }
                "--listen" => listen = Some(value()?),
                "--parameter-cache" => cache = Some(PathBuf::from(value()?)),
                "--allow-remote" => remote = true,
                other => bail!("unknown argument {other:?}\n{USAGE}"),
            }
        }
        config.listen = listen.or(config.listen);
        config.parameter_cache = cache.or(config.parameter_cache);
        if remote {
            config.allow_remote = Some(true);
        }
        Ok(config)
    }

    /// Where to listen: a unix socket by default; a TCP address other hosts
    /// can reach only with `allow_remote`.
    pub fn listen(&self) -> Result<Listen> {
        let listen = Listen::parse(self.listen.as_deref().unwrap_or("unix:///run/cuzk/cuzk.sock"))?;
        listen.check_reach(self.allow_remote.unwrap_or(false))?;
        Ok(listen)
    }

    /// What the daemon admits.
    pub fn limits(&self) -> Result<Limits> {
        let mut limits = Limits::default();
        if let Some(n) = self.max_unfinished_jobs {
            anyhow::ensure!(n >= 1, "max_unfinished_jobs must be at least 1");
            limits.max_unfinished_jobs = n;
        }
        Ok(limits)
    }

    /// Applies the parameter folder and starts the engine with its settings
    /// (`CUZK_*`, then the `[engine]` table), so that a bad setting stops
    /// the daemon before it listens.
    pub fn apply(&self) -> Result<()> {
        if let Some(dir) = &self.parameter_cache {
            std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", dir);
        }
        cuzk::engine::global().context("the engine's CUZK_* settings")?;
        if let Some(engine) = &self.engine {
            let json = serde_json::to_vec(engine)?;
            cuzk::engine::configure(&json).context("the [engine] settings")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Result<Config> {
        Config::from_args(a.iter().map(|s| s.to_string()))
    }

    #[test]
    fn flags_override_the_file() {
        let dir = std::env::temp_dir().join(format!("cuzk-daemon-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("daemon.toml");
        std::fs::write(&file, "listen = \"127.0.0.1:9820\"\nparameter_cache = \"/p\"\n[engine]\nsynthesis_threads = 3\n").unwrap();
        let c = args(&["--config", file.to_str().unwrap(), "--listen", "unix:///tmp/x.sock"]).unwrap();
        assert_eq!(c.listen.as_deref(), Some("unix:///tmp/x.sock"));
        assert_eq!(c.parameter_cache, Some(PathBuf::from("/p")));
        assert_eq!(c.engine.unwrap()["synthesis_threads"].as_integer(), Some(3));
        std::fs::write(&file, "lisen = \"x\"\n").unwrap();
        assert!(format!("{:#}", args(&["--config", file.to_str().unwrap()]).unwrap_err()).contains("lisen"));
        assert!(args(&["--listen"]).unwrap_err().to_string().contains("needs a value"));
        assert!(args(&["--bogus"]).unwrap_err().to_string().contains("unknown argument"));
        // Other hosts reach it only when allowed.
        let e = format!("{:#}", args(&["--listen", "0.0.0.0:9820"]).unwrap().listen().unwrap_err());
        assert!(e.contains("--allow-remote"), "{e}");
        assert!(args(&["--listen", "0.0.0.0:9820", "--allow-remote"]).unwrap().listen().is_ok());
        assert!(args(&["--listen", "127.0.0.1:9820"]).unwrap().listen().is_ok());
        assert!(args(&["--listen", "[::1]:9820"]).unwrap().listen().is_ok());
        std::fs::write(&file, "listen = \"10.0.0.5:9820\"\nallow_remote = true\n").unwrap();
        assert!(args(&["--config", file.to_str().unwrap()]).unwrap().listen().is_ok());
        assert_eq!(args(&[]).unwrap().limits().unwrap().max_unfinished_jobs, crate::jobs::DEFAULT_MAX_UNFINISHED);
        std::fs::write(&file, "max_unfinished_jobs = 3\n").unwrap();
        assert_eq!(args(&["--config", file.to_str().unwrap()]).unwrap().limits().unwrap().max_unfinished_jobs, 3);
        std::fs::write(&file, "max_unfinished_jobs = 0\n").unwrap();
        assert!(args(&["--config", file.to_str().unwrap()]).unwrap().limits().is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
