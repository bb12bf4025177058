//! The disk's own write bandwidth, the physical limit beside the XML runs: a `dd`-style write of a trace's size into the directory the traces are written to, with `fdatasync` (the disk) and without (the page cache).

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// One size measured both ways.
#[derive(Clone, Copy)]
pub struct Bandwidth {
    pub bytes: u64,
    /// write(2) of every byte, then fdatasync, bytes per second (`dd conv=fdatasync`).
    pub disk_bps: f64,
    /// write(2) of every byte only: what the page cache absorbs, bytes per second.
    pub cache_bps: f64,
}

/// Writes `bytes` (rounded up to whole MiB) of zeros into `dir` twice, with and without
/// fdatasync, and deletes the file each time (its dirty pages go with it).
pub fn measure(dir: &Path, bytes: u64) -> Result<Bandwidth, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("dd.bin");
    let mib = bytes.div_ceil(1 << 20).max(1);
    let buf = vec![0u8; 1 << 20];
    let once = |sync: bool| -> Result<f64, String> {
        let err = |e: std::io::Error| format!("{}: {e}", file.display());
        let start = Instant::now();
        let mut f = File::create(&file).map_err(err)?;
        for _ in 0..mib {
            f.write_all(&buf).map_err(err)?;
        }
        if sync {
            f.sync_data().map_err(err)?;
        }
        let secs = start.elapsed().as_secs_f64();
        drop(f);
        let _ = std::fs::remove_file(&file);
        Ok((mib << 20) as f64 / secs)
    };
    let disk_bps = once(true)?;
    let cache_bps = once(false)?;
    Ok(Bandwidth {
        bytes: mib << 20,
        disk_bps,
        cache_bps,
    })
}

/// One line per measured size.
pub fn report(dir: &Path, rows: &[(&str, Result<Bandwidth, String>)]) -> String {
    let mut t = format!(
        "disk write bandwidth in {} (the traces' directory), dd-style, 1 MiB writes:\n",
        dir.display()
    );
    for (what, r) in rows {
        match r {
            Ok(b) => {
                t.push_str(&format!(
                    "  {:.2} GB ({what}): disk (write + fdatasync) {:.2} GB/s; page cache (write only) {:.2} GB/s\n",
                    b.bytes as f64 / 1e9,
                    b.disk_bps / 1e9,
                    b.cache_bps / 1e9
                ));
            }
            Err(e) => t.push_str(&format!("  {what}: FAILED: {e}\n")),
        }
    }
    t
}
