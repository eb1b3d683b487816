//! `xbg7-export bench`: performance measured as ratios within one run (never in tests).
//!
//! (a) decoding the largest stage single-threaded vs one plain read of its bytes (each
//!     timed [`REPEATS`] times, the medians compared, so one busy moment on a shared
//!     machine does not decide the ratio; `--decode-only` stops after (a));
//! (b) exporting the whole disc (no previews, N jobs) vs the I/O floor: reading every
//!     input byte once plus copying the produced output tree;
//! (c) the export with previews vs without;
//! (b) and (c) are timed in `--rounds` rounds (default 3) and their medians compared,
//!     first with every output tree (the exports', the floor's copy) in a RAM folder
//!     (`--tmp`, default `/dev/shm` where it exists): there the floor is what the tool
//!     competes with, reading its inputs and writing its bytes, and not the disk's
//!     file-system state, which moved the floor by seconds between runs
//!     (docs/performance.md); then, as a second line ([`BenchReport::disk`]), in the
//!     scratch folder on disk, unless `--no-disk`;
//! each timed export is a child process, `xbg7-export --disc … --out …` as a user runs
//! it, so its time and its memory are the tool's and nothing of the bench's own.
//! (d) the largest peak RSS of those exports (and, apart, of the bench process: the
//!     (a) section and the floor).
//!
//! `--noisy-textures` runs (a)–(d) on a texture-heavy copy of the disc ([`noisy_copy`]).
//!
//! `--raster` instead times the rasterizer alone ([`raster()`]): a 5 000-triangle sphere
//! rendered at 512² with 2×2 supersampling on one thread, with the wireframe overlay,
//! and its PNG encoding. With `--disc` too, it also times the preview of the disc's
//! largest stage ([`raster_grid`]): preparing its albedos and rendering its grid.

use crate::config::Config;
use crate::export;
use crate::walker;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;
use xbg7::mesh::Mesh;
use xbg7_preview::raster::{self, RenderOptions};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Walk(#[from] walker::WalkError),
    #[error(transparent)]
    Export(#[from] export::ExportError),
    #[error("no stage file on the disc")]
    NoStage,
    #[error("decoding the largest stage failed: {0}")]
    Decode(String),
    #[error("a timed export failed: {0}")]
    Child(String),
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub disc_bytes: u64,
    pub files: usize,
    pub largest_stage: String,
    pub largest_stage_bytes: u64,
    pub stage_read_s: f64,
    pub stage_decode_s: f64,
    pub stage_ratio: f64,
    pub export_s: Option<f64>,
    pub io_floor_read_s: Option<f64>,
    pub io_floor_copy_s: Option<f64>,
    pub export_ratio: Option<f64>,
    pub export_previews_s: Option<f64>,
    pub previews_overhead: Option<f64>,
    /// Peak RSS of the bench process itself ((a) and the I/O floor).
    pub peak_rss_mb: Option<f64>,
    /// (d): the largest peak RSS of the timed exports (child processes).
    pub export_peak_rss_mb: Option<f64>,
    /// Every round's export time (b) and export-with-previews time, in run order.
    pub export_runs_s: Vec<f64>,
    pub previews_runs_s: Vec<f64>,
    /// Every round's I/O floor (read + copy) and its export's ratio to it: a round's
    /// export and floor meet the same state of the machine's page cache, which on a
    /// VM can move both by tens of percent between rounds.
    pub floor_runs_s: Vec<f64>,
    pub export_ratio_runs: Vec<f64>,
    /// User + system CPU seconds of each round's export and export with previews, and
    /// the previews' overhead in CPU (medians): on a machine shared with other work, CPU
    /// time moves much less than wall time.
    pub export_cpu_runs_s: Vec<f64>,
    pub previews_cpu_runs_s: Vec<f64>,
    pub previews_cpu_overhead: Option<f64>,
    /// Where the figures above wrote their trees (the RAM folder, or the scratch folder
    /// when there is none).
    pub tmp_dir: Option<String>,
    /// The same rounds with the trees on disk (the scratch folder): the second line.
    pub disk: Option<DiskFigures>,
}

/// (b) and (c) measured with the output trees on disk ([`BenchReport::disk`]).
#[derive(Debug, Serialize)]
pub struct DiskFigures {
    pub dir: String,
    pub export_s: f64,
    pub io_floor_read_s: f64,
    pub io_floor_copy_s: f64,
    pub export_ratio: f64,
    pub export_previews_s: Option<f64>,
    pub previews_overhead: Option<f64>,
    pub export_runs_s: Vec<f64>,
    pub previews_runs_s: Vec<f64>,
    pub floor_runs_s: Vec<f64>,
    pub export_ratio_runs: Vec<f64>,
}

impl BenchReport {
    /// The human summary: one line for the RAM folder's figures, one for the disk's.
    pub fn summary(&self) -> Vec<String> {
        let line = |place: &str, dir: &str, e: f64, r: f64, c: f64, p: Option<f64>| {
            let previews = p.map_or(String::new(), |p| format!("; previews {:+.0} %", p * 100.0));
            format!(
                "(b) {place} ({dir}): export {e:.2} s vs read {r:.2} s + copy {c:.2} s = {:.2}×{previews}",
                e / (r + c).max(1e-9)
            )
        };
        let mut v = vec![format!(
            "(a) {}: decode {:.3} s vs read {:.3} s = {:.2}×",
            self.largest_stage, self.stage_decode_s, self.stage_read_s, self.stage_ratio
        )];
        if let (Some(e), Some(r), Some(c)) = (self.export_s, self.io_floor_read_s, self.io_floor_copy_s) {
            let dir = self.tmp_dir.as_deref().unwrap_or("");
            v.push(line("in RAM", dir, e, r, c, self.previews_overhead));
            if let (Some(last), Some(cpu)) = (v.last_mut(), self.previews_cpu_overhead) {
                last.push_str(&format!(" (CPU {:+.0} %)", cpu * 100.0));
            }
        }
        if let Some(d) = &self.disk {
            v.push(line(
                "on disk",
                &d.dir,
                d.export_s,
                d.io_floor_read_s,
                d.io_floor_copy_s,
                d.previews_overhead,
            ));
        }
        v
    }
}

/// The RAM folder the bench writes its timed trees into by default: `/dev/shm` where
/// it is a folder (Linux), else none (the trees then go to the scratch folder).
pub fn default_tmp() -> Option<std::path::PathBuf> {
    let shm = Path::new("/dev/shm");
    shm.is_dir().then(|| shm.to_path_buf())
}

fn read_all(found: &[walker::DiscFile]) -> std::io::Result<u64> {
    let mut n = 0u64;
    for f in found {
        n += std::hint::black_box(read_one(f)?).len() as u64;
    }
    Ok(n)
}

/// A found container's bytes: the file, or its extent of the disc image.
fn read_one(f: &walker::DiscFile) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek};
    match f.extent {
        Some((offset, len)) => {
            let mut file = std::fs::File::open(&f.abs)?;
            file.seek(std::io::SeekFrom::Start(offset))?;
            let mut v = Vec::new();
            file.take(len).read_to_end(&mut v)?;
            Ok(v)
        }
        None => crate::input::read_own(&f.abs, crate::input::MAX_CONTAINER_BYTES, "an XPR2 container")
            .map_err(std::io::Error::other),
    }
}

/// Size in bytes of every found file (0 when unreadable).
fn file_sizes(found: &[walker::DiscFile]) -> Vec<u64> {
    found.iter().map(export::found_size).collect()
}

/// A found file's name (the last component of its relative path).
fn file_name(f: &walker::DiscFile) -> &str {
    f.rel.rsplit('/').next().unwrap_or("")
}

/// Index of the largest stage file among `found` (`sizes` as from [`file_sizes`]).
fn largest_stage(found: &[walker::DiscFile], sizes: &[u64]) -> Result<usize, BenchError> {
    (0..found.len())
        .filter(|&i| walker::is_stage(file_name(&found[i])))
        .max_by_key(|&i| sizes[i])
        .ok_or(BenchError::NoStage)
}

/// Flush dirty pages so each timed section starts from the same write-back state
/// (otherwise one section pays for the previous one's writes).
fn settle() {
    let _ = std::process::Command::new("sync").status();
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in walkdir::WalkDir::new(from).follow_links(false) {
        let e = e.map_err(std::io::Error::other)?;
        let rel = e.path().strip_prefix(from).map_err(std::io::Error::other)?;
        let dst = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst)?;
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dst)?;
        }
    }
    Ok(())
}

/// Peak resident set size in MiB (Linux `VmHWM`).
pub fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The largest peak RSS in MiB of the child processes waited for so far (Linux
/// `getrusage(RUSAGE_CHILDREN)`, whose `ru_maxrss` is in KiB).
pub fn children_peak_rss_mb() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getrusage only writes the struct it is given, which lives on this stack.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
        (rc == 0 && ru.ru_maxrss > 0).then(|| ru.ru_maxrss as f64 / 1024.0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The user + system CPU seconds of the child processes waited for so far (Linux
/// `getrusage(RUSAGE_CHILDREN)`; 0 elsewhere).
pub fn children_cpu_s() -> f64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: as in [`children_peak_rss_mb`].
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) } != 0 {
            return 0.0;
        }
        let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        s(ru.ru_utime) + s(ru.ru_stime)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0.0
    }
}

/// Run one export as a user does, `exe --disc D --out OUT --jobs N --quiet --no-report`
/// (`--no-previews` unless `previews`), in a child process; its exit status must be
/// success.
fn export_child(exe: &Path, disc: &Path, out: &Path, jobs: usize, previews: bool) -> Result<(), BenchError> {
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--disc").arg(disc).arg("--out").arg(out);
    cmd.args(["--jobs", &jobs.to_string(), "--quiet", "--no-report"]);
    if !previews {
        cmd.arg("--no-previews");
    }
    let o = cmd.stdin(std::process::Stdio::null()).output()?;
    if !o.status.success() {
        return Err(BenchError::Child(format!(
            "{cmd:?} exited with {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    Ok(())
}

/// How many times each side of (a) is timed (the medians are compared).
pub const REPEATS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Where [`run`] writes its timed trees and what it times.
#[derive(Clone, Debug)]
pub struct BenchPlaces<'a> {
    /// The RAM folder of the main figures (`None`: `scratch` instead).
    pub tmp: Option<&'a Path>,
    /// The folder on disk of the second line.
    pub scratch: &'a Path,
    /// Also time the rounds on disk (the second line).
    pub disk: bool,
}

/// Run the bench on `disc`, writing output trees where `places` says and using `exe`
/// (this program) for the timed exports. `decode_only`: measure (a) and the peak RSS only.
pub fn run(
    exe: &Path,
    disc: &Path,
    places: &BenchPlaces<'_>,
    jobs: usize,
    with_previews: bool,
    decode_only: bool,
    rounds: usize,
) -> Result<BenchReport, BenchError> {
    let cfg = Config::default();
    let found = walker::discover(disc)?;
    let sizes = file_sizes(&found);
    let li = largest_stage(&found, &sizes)?;
    // Warm the page cache once so both sides read from memory.
    read_all(&found)?;

    let name = file_name(&found[li]).to_string();
    let (stage_read_s, stage_decode_s) = time_stage(&found[li], &name, &cfg)?;
    let mut report = BenchReport {
        disc_bytes: sizes.iter().sum(),
        files: found.len(),
        largest_stage: name,
        largest_stage_bytes: sizes[li],
        stage_read_s,
        stage_decode_s,
        stage_ratio: stage_decode_s / stage_read_s.max(1e-9),
        export_s: None,
        io_floor_read_s: None,
        io_floor_copy_s: None,
        export_ratio: None,
        export_previews_s: None,
        previews_overhead: None,
        peak_rss_mb: peak_rss_mb(),
        export_peak_rss_mb: None,
        export_runs_s: Vec::new(),
        previews_runs_s: Vec::new(),
        floor_runs_s: Vec::new(),
        export_ratio_runs: Vec::new(),
        tmp_dir: None,
        disk: None,
        export_cpu_runs_s: Vec::new(),
        previews_cpu_runs_s: Vec::new(),
        previews_cpu_overhead: None,
    };
    if decode_only {
        return Ok(report);
    }
    let ram = places.tmp.unwrap_or(places.scratch);
    // A folder of this run's own inside the RAM folder (which others share).
    let own = tempfile::Builder::new().prefix("xbg7-bench-").tempdir_in(ram)?;
    let disk = (places.disk && places.tmp.is_some()).then_some(places.scratch);
    let job = Job {
        exe,
        disc,
        found: &found,
        jobs,
        with_previews,
    };
    let (in_ram, on_disk) = time_rounds(&job, own.path(), disk, rounds)?;
    report.tmp_dir = Some(ram.display().to_string());
    if let Some(d) = on_disk {
        let mut r = Figures::default();
        d.fill(&mut r, with_previews);
        report.disk = Some(DiskFigures {
            dir: places.scratch.display().to_string(),
            export_s: r.export_s,
            io_floor_read_s: r.io_floor_read_s,
            io_floor_copy_s: r.io_floor_copy_s,
            export_ratio: r.export_ratio,
            export_previews_s: r.export_previews_s,
            previews_overhead: r.previews_overhead,
            export_runs_s: r.export_runs_s,
            previews_runs_s: r.previews_runs_s,
            floor_runs_s: r.floor_runs_s,
            export_ratio_runs: r.export_ratio_runs,
        });
    }
    let mut r = Figures::default();
    report.disc_bytes = in_ram.disc_bytes;
    report.export_cpu_runs_s = in_ram.export_cpu.clone();
    report.previews_cpu_runs_s = in_ram.previews_cpu.clone();
    if with_previews {
        let (e, p) = (median(in_ram.export_cpu.clone()), median(in_ram.previews_cpu.clone()));
        report.previews_cpu_overhead = Some(p / e.max(1e-9) - 1.0);
    }
    in_ram.fill(&mut r, with_previews);
    report.export_s = Some(r.export_s);
    report.io_floor_read_s = Some(r.io_floor_read_s);
    report.io_floor_copy_s = Some(r.io_floor_copy_s);
    report.export_ratio = Some(r.export_ratio);
    report.export_previews_s = r.export_previews_s;
    report.previews_overhead = r.previews_overhead;
    report.export_runs_s = r.export_runs_s;
    report.previews_runs_s = r.previews_runs_s;
    report.floor_runs_s = r.floor_runs_s;
    report.export_ratio_runs = r.export_ratio_runs;
    report.peak_rss_mb = peak_rss_mb();
    report.export_peak_rss_mb = children_peak_rss_mb();
    Ok(report)
}

/// (a): the medians of [`REPEATS`] plain reads and decodes of the largest stage.
fn time_stage(f: &walker::DiscFile, name: &str, cfg: &Config) -> Result<(f64, f64), BenchError> {
    let mut reads = Vec::with_capacity(REPEATS);
    let mut decodes = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        let t = Instant::now();
        let bytes = std::hint::black_box(read_one(f)?);
        reads.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let d = export::decode_container(&bytes, export::kind_of(name), cfg)
            .map_err(|r| BenchError::Decode(r.to_string()))?;
        decodes.push(t.elapsed().as_secs_f64());
        std::hint::black_box(d);
    }
    Ok((median(reads), median(decodes)))
}

/// The times of every round of (b) and (c), in seconds, in one place.
#[derive(Default)]
struct Rounds {
    exports: Vec<f64>,
    reads: Vec<f64>,
    copies: Vec<f64>,
    previews: Vec<f64>,
    /// CPU seconds (user + system) of each export and export with previews.
    export_cpu: Vec<f64>,
    previews_cpu: Vec<f64>,
    /// The disc's bytes, as the last floor read counted them.
    disc_bytes: u64,
}

/// What every timed export runs: this program on the disc.
struct Job<'a> {
    exe: &'a Path,
    disc: &'a Path,
    found: &'a [walker::DiscFile],
    jobs: usize,
    with_previews: bool,
}

/// `rounds` rounds of: in `ram`, export, floor (read + copy of that export's tree),
/// export with previews; then the same in `disk` when given. The medians are compared,
/// so one busy moment of a shared machine does not decide a ratio, and a round's RAM
/// and disk sections meet the same state of the machine.
///
/// On disk, every tree gets a fresh name and all are deleted only after the last timed
/// section: on ext4 without a journal, creating files within minutes of deleting many is
/// slowed down (the inode allocator skips recently deleted inodes one by one), which
/// would tax whichever section came after a deletion. In RAM (tmpfs) nothing of the
/// kind happens, and each tree goes as soon as it has been used, so the RAM holds at
/// most two at a time.
fn time_rounds(
    job: &Job<'_>,
    ram: &Path,
    disk: Option<&Path>,
    rounds: usize,
) -> Result<(Rounds, Option<Rounds>), BenchError> {
    let mut in_ram = Rounds::default();
    let mut on_disk = disk.map(|_| Rounds::default());
    let mut trees = Vec::new();
    let result = (|| {
        for r in 0..rounds.max(1) {
            in_ram.round(job, ram, r, &mut Vec::new(), true)?;
            if let (Some(d), Some(t)) = (disk, on_disk.as_mut()) {
                t.round(job, d, r, &mut trees, false)?;
            }
        }
        Ok::<(), BenchError>(())
    })();
    for t in &trees {
        let _ = std::fs::remove_dir_all(t);
    }
    result.map(|()| (in_ram, on_disk))
}

/// Figures of one place's rounds (see [`Rounds::fill`]).
#[derive(Default)]
struct Figures {
    export_s: f64,
    io_floor_read_s: f64,
    io_floor_copy_s: f64,
    export_ratio: f64,
    export_previews_s: Option<f64>,
    previews_overhead: Option<f64>,
    export_runs_s: Vec<f64>,
    previews_runs_s: Vec<f64>,
    floor_runs_s: Vec<f64>,
    export_ratio_runs: Vec<f64>,
}

impl Rounds {
    /// Round `r` in `place`: export, floor, export with previews. The trees are removed
    /// when `remove_now`, else added to `trees` (removed after the last section).
    fn round(
        &mut self,
        job: &Job<'_>,
        place: &Path,
        r: usize,
        trees: &mut Vec<std::path::PathBuf>,
        remove_now: bool,
    ) -> Result<(), BenchError> {
        let out = place.join(format!("bench-out-{r}"));
        let copy = place.join(format!("bench-copy-{r}"));
        let out2 = place.join(format!("bench-out-previews-{r}"));
        for t in [&out, &copy, &out2] {
            let _ = std::fs::remove_dir_all(t); // a stale tree of an interrupted run
        }
        let mut done = |t: &Path| {
            if remove_now {
                let _ = std::fs::remove_dir_all(t);
            } else {
                trees.push(t.to_path_buf());
            }
        };
        settle();
        let (t, cpu) = (Instant::now(), children_cpu_s());
        export_child(job.exe, job.disc, &out, job.jobs, false)?;
        self.exports.push(t.elapsed().as_secs_f64());
        self.export_cpu.push(children_cpu_s() - cpu);

        let t = Instant::now();
        self.disc_bytes = read_all(job.found)?;
        self.reads.push(t.elapsed().as_secs_f64());
        settle();
        let t = Instant::now();
        copy_tree(&out, &copy)?;
        self.copies.push(t.elapsed().as_secs_f64());
        done(&out);
        done(&copy);

        if job.with_previews {
            settle();
            let (t, cpu) = (Instant::now(), children_cpu_s());
            export_child(job.exe, job.disc, &out2, job.jobs, true)?;
            self.previews.push(t.elapsed().as_secs_f64());
            self.previews_cpu.push(children_cpu_s() - cpu);
            done(&out2);
        }
        Ok(())
    }

    /// Every round's times, their medians and ratios.
    fn fill(self, f: &mut Figures, with_previews: bool) {
        let Rounds {
            exports,
            reads,
            copies,
            previews,
            disc_bytes: _,
            ..
        } = self;
        f.export_runs_s = exports.clone();
        f.previews_runs_s = previews.clone();
        f.floor_runs_s = reads.iter().zip(&copies).map(|(r, c)| r + c).collect();
        f.export_ratio_runs = exports
            .iter()
            .zip(&f.floor_runs_s)
            .map(|(e, fl)| e / fl.max(1e-9))
            .collect();
        f.export_s = median(exports);
        f.io_floor_read_s = median(reads);
        f.io_floor_copy_s = median(copies);
        f.export_ratio = f.export_s / (f.io_floor_read_s + f.io_floor_copy_s).max(1e-9);
        if with_previews {
            let s = median(previews);
            f.export_previews_s = Some(s);
            f.previews_overhead = Some(s / f.export_s - 1.0);
        }
    }
}

/// Copy the disc's containers into `to` (a folder of `hidden/resource3d/*.xpr`) with
/// every texture's base level replaced by pseudo-random bytes (any bytes are a valid
/// block of every format): the high-entropy textures of detailed art, for the
/// texture-heavy variant of the bench. Geometry and descriptors are untouched. Returns
/// how many base levels were randomised.
pub fn noisy_copy(disc: &Path, to: &Path) -> Result<usize, BenchError> {
    let found = walker::discover(disc)?;
    let dir = to.join("hidden").join("resource3d");
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(&dir)?;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut noisy = 0;
    for f in &found {
        let mut bytes = read_one(f)?;
        if let Ok(c) = xbg7::container::parse(&bytes) {
            let data_start = c.data_start;
            let ranges: Vec<(usize, usize)> = c
                .resources
                .iter()
                .filter(|r| r.is(xbg7::container::TAG_TX2D))
                .filter_map(|r| {
                    let h = xbg7::texture::header::parse(r.descriptor).ok()?;
                    let format = h.check().ok()?;
                    let base = h.base_address as usize;
                    let end = base.saturating_add(h.base_size(format) as usize).min(c.data.len());
                    (base < end).then_some((data_start + base, data_start + end))
                })
                .collect();
            for (a, b) in ranges {
                for x in &mut bytes[a..b] {
                    // xorshift64*
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    *x = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8;
                }
                noisy += 1;
            }
        }
        std::fs::write(dir.join(file_name(f)), &bytes)?;
    }
    Ok(noisy)
}

/// UV sphere with smooth normals: `2·segments·(rings − 1)` triangles.
pub fn uv_sphere(rings: u32, segments: u32, radius: f32, centre: [f32; 3]) -> Mesh {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for r in 0..=rings {
        let th = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let ph = 2.0 * std::f32::consts::PI * s as f32 / segments as f32;
            let n = [th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()];
            normals.push(n);
            positions.push([
                centre[0] + radius * n[0],
                centre[1] + radius * n[1],
                centre[2] + radius * n[2],
            ]);
        }
    }
    let row = segments + 1;
    let mut indices = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (r * row + s, r * row + s + 1, (r + 1) * row + s, (r + 1) * row + s + 1);
            if r != 0 {
                indices.extend_from_slice(&[a, b, c]);
            }
            if r != rings - 1 {
                indices.extend_from_slice(&[b, d, c]);
            }
        }
    }
    Mesh::single(positions, Some(normals), indices)
}

/// Rasterizer timings in milliseconds (min and median of [`RASTER_RUNS`] runs each).
#[derive(Clone, Debug, Serialize)]
pub struct RasterReport {
    pub triangles: usize,
    pub size: u32,
    pub supersample: u32,
    pub render_ms_min: f64,
    pub render_ms_median: f64,
    pub wireframe_ms_min: f64,
    pub wireframe_ms_median: f64,
    pub png_ms_min: f64,
    pub png_ms_median: f64,
}

/// Runs per timing of [`raster()`].
pub const RASTER_RUNS: usize = 30;

/// Time the rasterizer on the calling thread (see the module doc).
pub fn raster() -> RasterReport {
    let sphere = uv_sphere(51, 50, 10.0, [0.0; 3]);
    let o = RenderOptions::default();
    let times = |f: &mut dyn FnMut()| {
        let v: Vec<f64> = (0..RASTER_RUNS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        (min, median(v))
    };
    let (render_ms_min, render_ms_median) = times(&mut || {
        std::hint::black_box(raster::render_mesh(&sphere, &o));
    });
    let wired = RenderOptions {
        wireframe: true,
        ..o.clone()
    };
    let (wireframe_ms_min, wireframe_ms_median) = times(&mut || {
        std::hint::black_box(raster::render_mesh(&sphere, &wired));
    });
    let img = raster::render_mesh(&sphere, &o);
    let (png_ms_min, png_ms_median) = times(&mut || {
        std::hint::black_box(raster::encode_png(&img));
    });
    RasterReport {
        triangles: sphere.triangle_count(),
        size: o.size,
        supersample: o.supersample,
        render_ms_min,
        render_ms_median,
        wireframe_ms_min,
        wireframe_ms_median,
        png_ms_min,
        png_ms_median,
    }
}

/// Timing of one stage's preview grid, on one thread (see [`raster_grid`]).
#[derive(Clone, Debug, Serialize)]
pub struct GridReport {
    pub stage: String,
    pub cells: usize,
    pub triangles: usize,
    pub vertices: usize,
    /// Preparing the albedos for sampling (mip chains at the grid's texture side).
    pub prepare_ms_median: f64,
    pub grid_ms_min: f64,
    pub grid_ms_median: f64,
    /// `grid_ms_min` per drawn triangle.
    pub ns_per_triangle: f64,
}

/// Runs per timing of [`raster_grid`].
pub const GRID_RUNS: usize = 5;

/// Time the preview grid of the largest stage of `disc` as the export draws it (textured,
/// default config), single-threaded: preparing its albedos, then rendering the grid.
pub fn raster_grid(disc: &Path) -> Result<GridReport, BenchError> {
    let cfg = Config::default();
    let found = walker::discover(disc)?;
    let largest = &found[largest_stage(&found, &file_sizes(&found))?];
    let name = file_name(largest).to_string();
    let bytes = read_one(largest)?;
    let kind = export::kind_of(&name);
    let d = export::decode_container(&bytes, kind, &cfg).map_err(|r| BenchError::Decode(r.to_string()))?;
    let c = xbg7::Xpr::parse(&bytes)
        .map_err(|r| BenchError::Decode(r.to_string()))?
        .into_container();
    let albedos = xbg7::texture::resource::decode_albedos(&c);
    let side = export::preview_texture_side(kind, &cfg);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(std::io::Error::other)?;
    let opts = export::render_options(&cfg, cfg.output.stage_cell);
    let (mut prepares, mut grids) = (Vec::new(), Vec::new());
    for _ in 0..GRID_RUNS {
        let t = Instant::now();
        let textures = std::hint::black_box(export::prepare_albedos(&albedos, side));
        prepares.push(t.elapsed().as_secs_f64() * 1000.0);
        let cells = export::textured_grid_cells(d.resources.iter(), &textures);
        let t = Instant::now();
        pool.install(|| {
            std::hint::black_box(xbg7_preview::preview::stage_grid(
                &cells,
                cfg.output.stage_cell,
                cfg.output.stage_max_width,
                &opts,
            ))
        });
        grids.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let meshes = d.resources.iter().filter_map(|r| r.result.as_ref().ok());
    let (triangles, vertices) = meshes.fold((0, 0), |(t, v), dr| {
        (t + dr.mesh.triangle_count(), v + dr.mesh.positions.len())
    });
    let grid_ms_min = grids.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(GridReport {
        stage: name,
        cells: d.resources.len(),
        triangles,
        vertices,
        prepare_ms_median: median(prepares),
        grid_ms_min,
        grid_ms_median: median(grids),
        ns_per_triangle: grid_ms_min * 1e6 / triangles.max(1) as f64,
    })
}

/// One PNG encoder setting measured over a set of images (see [`png_settings`]).
#[derive(Clone, Debug, Serialize)]
pub struct PngRow {
    pub set: String,
    /// `png_crate`: the `png` crate with `settings`; `export`: the path every texture of
    /// the export takes (`write_png_compact`: the narrowest colour type, stored in one
    /// pass when its sample bands do not compress, else the tool's settings).
    pub path: &'static str,
    pub settings: raster::PngSettings,
    pub images: usize,
    pub rgba_mb: f64,
    pub png_mb: f64,
    /// Single-threaded encoding time, the best of [`PNG_RUNS`].
    pub encode_s: f64,
    /// RGBA megabytes encoded per second.
    pub mb_per_s: f64,
}

/// Runs per setting of [`png_settings`] (the fastest counts).
pub const PNG_RUNS: usize = 3;

/// The settings [`png_settings`] compares: the `png` crate's fast path (`fdeflate`) and
/// zlib levels 1 and 6, each with the row filters that matter, and stored (no
/// compression) as the floor.
pub fn png_candidates() -> Vec<raster::PngSettings> {
    use raster::{PngDeflate, PngSettings};
    let mut v = vec![PngSettings {
        deflate: PngDeflate::Stored,
        filter: "none",
    }];
    for deflate in [PngDeflate::Fdeflate, PngDeflate::Level(1), PngDeflate::Level(6)] {
        for filter in ["none", "sub", "up", "paeth", "adaptive"] {
            v.push(PngSettings { deflate, filter });
        }
    }
    v
}

/// High-entropy textures: random DXT1 / DXT4_5 / DXN blocks decoded (what a texture
/// with fine detail looks like after BCn), `count` images of `side²` pixels.
pub fn noisy_textures(count: usize, side: u32) -> Vec<raster::Image> {
    use xbg7::texture::{bcn, Format};
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|k| {
            let f = [Format::Dxt1, Format::Dxt4_5, Format::Dxn][k % 3];
            let mut rgba = vec![0u8; (side * side * 4) as usize];
            let mut px = [[0u8; 4]; 16];
            for by in 0..side / 4 {
                for bx in 0..side / 4 {
                    let block: Vec<u8> = (0..2).flat_map(|_| next().to_le_bytes()).collect();
                    bcn::decode_block(f, &block[..f.block_bytes() as usize], &mut px);
                    for (i, p) in px.iter().enumerate() {
                        let (x, y) = (bx * 4 + i as u32 % 4, by * 4 + i as u32 / 4);
                        let o = 4 * (y * side + x) as usize;
                        rgba[o..o + 4].copy_from_slice(&bcn::swizzle(*p, [0, 1, 2, 3]));
                    }
                }
            }
            raster::Image {
                width: side,
                height: side,
                rgba,
            }
        })
        .collect()
}

/// Every decoded texture of `disc` (at most `limit_mb` of RGBA), as the export encodes them.
pub fn disc_textures(disc: &Path, limit_mb: f64) -> Result<Vec<raster::Image>, BenchError> {
    let mut out = Vec::new();
    let mut bytes = 0usize;
    for f in walker::discover(disc)? {
        let data = read_one(&f)?;
        let Ok(c) = xbg7::Xpr::parse(&data).map(xbg7::Xpr::into_container) else {
            continue;
        };
        for r in c.resources.iter().filter(|r| r.is(xbg7::container::TAG_TX2D)) {
            if let Ok(img) = xbg7::texture::resource::decode_resource(r, c.data).result {
                bytes += img.rgba.len();
                out.push(raster::Image {
                    width: img.width,
                    height: img.height,
                    rgba: img.rgba,
                });
            }
            if bytes as f64 > limit_mb * 1e6 {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// Encode `images` with every [`png_candidates`] setting on the calling thread: size
/// against time.
pub fn png_settings(set: &str, images: &[raster::Image]) -> Vec<PngRow> {
    let rgba: usize = images.iter().map(|i| i.rgba.len()).sum();
    let row = |path: &'static str, settings: raster::PngSettings, encode: &dyn Fn(&raster::Image) -> usize| {
        let mut best = f64::INFINITY;
        let mut size = 0;
        for _ in 0..PNG_RUNS {
            let t = Instant::now();
            size = images.iter().map(encode).sum::<usize>();
            best = best.min(t.elapsed().as_secs_f64());
        }
        PngRow {
            set: set.to_string(),
            path,
            settings,
            images: images.len(),
            rgba_mb: rgba as f64 / 1e6,
            png_mb: size as f64 / 1e6,
            encode_s: best,
            mb_per_s: rgba as f64 / 1e6 / best,
        }
    };
    let mut rows: Vec<PngRow> = png_candidates()
        .into_iter()
        .map(|settings| {
            row("png_crate", settings, &|img| {
                raster::try_encode_png_with(img, settings).map_or(0, |p| p.len())
            })
        })
        .collect();
    rows.push(row("export", raster::PNG_SETTINGS, &|img| {
        raster::try_encode_png_compact(img.width, img.height, &img.rgba).map_or(0, |p| p.len())
    }));
    rows
}
