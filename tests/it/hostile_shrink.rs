//! Inputs that get shorter while the run reads them: a `.xpr` (and a disc image) cut and
//! restored over and over during the export. Inputs are read into owned buffers, never
//! mapped, so a vanished page cannot end the run with SIGBUS: each run ends with an exit
//! status (0, or 2 when the image's own tables were cut while they were read), and a
//! completed run's manifest reads back (`diff M M`).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Run the export of `disc` while another thread cuts each of `victims` to a few bytes
/// and writes it back in full, again and again; `rounds` runs. Returns every run's exit
/// code.
fn export_while_cutting(disc: &Path, victims: &[PathBuf], out: &Path, rounds: usize) -> Vec<i32> {
    let fulls: Vec<Vec<u8>> = victims.iter().map(|v| std::fs::read(v).unwrap()).collect();
    let mut codes = Vec::new();
    for _ in 0..rounds {
        let stop = AtomicBool::new(false);
        let code = std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    for (victim, full) in victims.iter().zip(&fulls) {
                        let f = std::fs::OpenOptions::new().write(true).open(victim).unwrap();
                        f.set_len(4096).unwrap();
                        std::thread::sleep(Duration::from_micros(500));
                        f.set_len(full.len() as u64).unwrap();
                        std::os::unix::fs::FileExt::write_all_at(&f, full, 0).unwrap();
                    }
                    std::thread::sleep(Duration::from_micros(500));
                }
            });
            let t = Instant::now();
            let o = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
                .args(["--quiet", "--no-previews", "--jobs", "2", "--disc"])
                .arg(disc)
                .arg("--out")
                .arg(out)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            stop.store(true, Ordering::Relaxed);
            use std::os::unix::process::ExitStatusExt;
            assert!(
                o.status.signal().is_none(),
                "the export died of signal {:?} after {:?}",
                o.status.signal(),
                t.elapsed()
            );
            o.status.code().unwrap()
        });
        for (victim, full) in victims.iter().zip(&fulls) {
            std::fs::write(victim, full).unwrap();
        }
        if code == 0 {
            let m = out.join("manifest.json");
            let d = Command::new(env!("CARGO_BIN_EXE_xbg7-export"))
                .arg("diff")
                .arg(&m)
                .arg(&m)
                .output()
                .unwrap();
            assert_eq!(d.status.code(), Some(0));
        }
        codes.push(code);
    }
    codes
}

/// Four copies of the largest stage of the demo disc (1.5 MB each: their decodes take
/// long enough for the cuts to land while they are read).
fn largest_stage(tmp: &tempfile::TempDir) -> Vec<PathBuf> {
    let plan = xbg7_synth::file_plan(&xbg7_synth::SynthOptions::demo(1));
    let (bytes, name) = plan
        .iter()
        .filter(|s| s.rel_path.contains("/Stage_"))
        .map(|s| {
            (
                xbg7_synth::build_file(s).bytes,
                s.rel_path.rsplit('/').next().unwrap().to_string(),
            )
        })
        .max_by_key(|(b, _)| b.len())
        .unwrap();
    let res = tmp.path().join("disc").join("hidden").join("resource3d");
    std::fs::create_dir_all(&res).unwrap();
    (0..4)
        .map(|k| {
            let p = res.join(format!("{k}_{name}"));
            std::fs::write(&p, &bytes).unwrap();
            p
        })
        .collect()
}

#[test]
fn an_xpr_cut_while_it_is_read_never_kills_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let stages = largest_stage(&tmp);
    let codes = export_while_cutting(&tmp.path().join("disc"), &stages, &tmp.path().join("out"), 8);
    assert!(codes.iter().all(|&c| c == 0), "{codes:?}");
}

#[test]
fn an_image_cut_while_it_is_read_never_kills_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    largest_stage(&tmp);
    let iso = tmp.path().join("disc.iso");
    xbg7_export::image::write_image(&tmp.path().join("disc"), &iso, false).unwrap();
    let codes = export_while_cutting(&iso, std::slice::from_ref(&iso), &tmp.path().join("out"), 8);
    assert!(codes.iter().all(|&c| c == 0 || c == 2), "{codes:?}");
}
