//! The `xbg7-export` command line: export a disc, generate the synthetic disc, run the
//! demo, inspect or render one container. `anyhow` lives here only.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use xbg7_export::config::Config;
use xbg7_export::export::{self, ExportOptions};
use xbg7_export::inspect;
use xbg7_export::manifest;
use xbg7_export::note;
use xbg7_export::pipe;
use xbg7_export::text::plural;
use xbg7_synth::{self as synth, Scale, SynthOptions};

#[derive(Parser, Debug)]
#[command(
    name = "xbg7-export",
    version,
    about = "Project Sylpheed XPR2/XBG7 models → glTF 2.0",
    args_conflicts_with_subcommands = true,
    override_usage = "xbg7-export --disc <DISC> --out <DIR> [OPTIONS]\n       xbg7-export <COMMAND>",
    after_help = EXAMPLES
)]
struct Cli {
    #[command(flatten)]
    export: ExportArgs,
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(clap::Args, Debug, Clone)]
struct ExportArgs {
    /// The disc: its root (holding hidden/Resource3D, any case), the Resource3D folder, a
    /// folder of .xpr files, one .xpr file, or a disc image (.iso: XISO or XGD2/XGD3).
    #[arg(long, value_name = "DISC")]
    disc: Option<PathBuf>,
    /// Output folder (created; must not be inside --disc; an existing one must be empty
    /// or an earlier export). Holds manifest.json, one folder per container, and the
    /// tool's own files in .xbg7/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args, Debug, Clone)]
struct CommonArgs {
    /// Pipeline configuration (default: built-in defaults, as in pipeline.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Worker threads, 1 to 256; 0 (the default) means one per core.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Only containers this glob matches, case-insensitively, by file name
    /// ('Stage_S0*'), output folder ('stage_s10') or manifest path
    /// ('hidden/resource3d/Stage_S10.xpr'); may be repeated. The other containers of a
    /// used --out are kept as they are.
    #[arg(long, value_name = "GLOB")]
    only: Vec<String>,
    /// Do not write PNG previews.
    #[arg(long)]
    no_previews: bool,
    /// Do not write the HTML coverage report OUT/index.html.
    #[arg(long)]
    no_report: bool,
    /// No progress bar and no summary line.
    #[arg(long)]
    quiet: bool,
    /// Explain per container what was decided (decoded, rejected and why, layout,
    /// textures, a capped grid), one line each on stderr.
    #[arg(short, long)]
    verbose: bool,
    /// Output format: gltf (.gltf + .bin, the default) or glb (one self-contained .glb).
    /// Overrides `output.format` of the configuration.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// With --format glb, also write the textures as PNG files beside the models
    /// (`output.texture_files`); they are embedded in each .glb either way.
    #[arg(long)]
    textures: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    Gltf,
    Glb,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Print a shell completion script (e.g. `xbg7-export completions bash >
    /// ~/.local/share/bash-completion/completions/xbg7-export`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Generate the synthetic disc (with ground truth in DIR/truth.json).
    Synth(SynthArgs),
    /// Generate the demo disc in a temporary folder and export it to --out.
    Demo {
        /// Output folder of the export (as the main command's --out).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Generator seed of the demo disc.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Generate the demo disc with the imperfection families (see `synth --realism`).
        #[arg(long)]
        realism: bool,
        #[command(flatten)]
        common: CommonArgs,
    },
    /// Measure decode and export time as ratios to the I/O floor (see docs/performance.md).
    Bench(BenchArgs),
    /// Decode a synthetic disc and compare every resource with its truth.json
    /// (exit 1 if any decoded resource differs from the truth or an expected one is missed).
    Verify(VerifyArgs),
    /// Compare two manifests: gains, regressions, coverage. Exit 0 = no regression,
    /// 1 = regression (unless --allow-regressions), 2 = usage or I/O error.
    Diff(DiffArgs),
    /// Show a container's directory, declarations, records and per-resource outcome.
    Info {
        /// The .xpr container to inspect.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Pipeline configuration (default: built-in defaults).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Also write a PNG preview of the container to this path.
        #[arg(long)]
        preview: Option<PathBuf>,
    },
    /// Render one container to PNG: a model, or a grid of its resources (stages).
    Render {
        /// The .xpr container to render.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Only resources whose name matches this glob.
        #[arg(long)]
        only: Option<String>,
        /// Image size in pixels: a model's (16 to 4096, default 512, the bigger view than
        /// the export's previews) or a grid cell's (16 to 1024, default 128: output.stage_cell).
        #[arg(long, value_name = "PX")]
        size: Option<u32>,
        /// The PNG to write [default: FILE's name with .png, in the current folder; never over
        /// a file already there].
        #[arg(short = 'o', long, value_name = "OUT.png")]
        out: Option<PathBuf>,
        /// Pipeline configuration (default: built-in defaults).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
}

// The arguments of `synth` (a plain comment: the variant's doc is its help).
#[derive(clap::Args, Debug)]
struct SynthArgs {
    /// Folder to write the disc into (hidden/resource3d/*.xpr, truth.json).
    #[arg(long, value_name = "DIR", required_unless_present = "iso")]
    out: Option<PathBuf>,
    /// Also (or instead) write the disc as an Xbox disc image: an XISO holding
    /// hidden/Resource3D (spelled as the game does) and truth.json.
    #[arg(long, value_name = "FILE")]
    iso: Option<PathBuf>,
    /// With --iso: place the partition at the XGD2 offset (0xFD90000) of a sparse
    /// file, as in a full XGD2 disc image.
    #[arg(long, requires = "iso")]
    xgd2: bool,
    /// Generator seed: the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// demo (small, seconds) or full (≈ 1 GB, like the retail disc).
    #[arg(long, default_value = "demo")]
    scale: Scale,
    /// Also add hostile and broken files (truncations, bad counts and offsets, hostile
    /// names, symlinks, …) described in DIR/hostile.json.
    #[arg(long)]
    hostile: bool,
    /// Add the imperfection families (imperfect normals, degenerate / flipped /
    /// unreferenced shares, undecodable owners next to same-V siblings, record-like
    /// filler, record order, per-record body blocks), recorded per resource in
    /// truth.json (`family`). Default off: the perfect reference disc.
    #[arg(long)]
    realism: bool,
    /// Add multi-stream sub-models to the stages, and lay multi-stream buffers apart from
    /// their index buffers (scattered, clustered, after the textures; aligned 16 or 4096
    /// bytes), recorded per resource in truth.json (`family`: layout, stream count,
    /// positions alone in stream 0). Combinable with --realism.
    #[arg(long)]
    multistream: bool,
}

// The arguments of `verify` (a plain comment: the variant's doc is its help).
#[derive(clap::Args, Debug)]
struct VerifyArgs {
    /// A synthetic disc (as written by `synth`).
    #[arg(long, value_name = "DISC")]
    disc: PathBuf,
    /// Pipeline configuration (default: built-in defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// List every missed resource (default: the first 10).
    #[arg(long)]
    all: bool,
    /// Ground truth to compare with (default: DISC/truth.json), e.g. a truth.json
    /// regenerated by a newer generator for a disc whose bytes it reproduces.
    #[arg(long)]
    truth: Option<PathBuf>,
}

// The arguments of `diff` (a plain comment: the variant's doc is its help).
#[derive(clap::Args, Debug)]
struct DiffArgs {
    /// The manifest before the change (OUT/manifest.json of the old run, or OUT).
    old: PathBuf,
    /// The manifest after the change (or its export folder).
    new: PathBuf,
    /// Report format: text (terminal), markdown (a PR comment), json (scripts) or html
    /// (a page like OUT/index.html).
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Write the report to this file instead of stdout (html: its links to the
    /// previews of OLD's and NEW's folders are relative to this file's folder).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Exit 0 even when there are regressions.
    #[arg(long)]
    allow_regressions: bool,
    /// Markdown only: at most this many characters (a pull-request comment holds
    /// 65 536), the summary first and the lists folded and cut; 0: no cap.
    #[arg(long, value_name = "N", default_value_t = xbg7_export::diff::MARKDOWN_CAP)]
    max_chars: usize,
}

// The arguments of `bench` (a plain comment: the variant's doc is its help).
#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// Disc to measure (generate one with `synth --scale full`).
    #[arg(long, required_unless_present_any = ["raster", "png"])]
    disc: Option<PathBuf>,
    /// Folder on disk for the second line's output trees and the texture-heavy copy
    /// (default: a temp dir).
    #[arg(long)]
    scratch: Option<PathBuf>,
    /// RAM folder (tmpfs) for the timed output trees, the floor's copy and the previews
    /// runs: the main figures (default: /dev/shm where it exists, else --scratch).
    #[arg(long, value_name = "DIR")]
    tmp: Option<PathBuf>,
    /// Skip the second line (the same rounds with the trees on disk, in --scratch).
    #[arg(long)]
    no_disk: bool,
    /// Time the exports of this xbg7-export binary instead of this one's (a build of
    /// another commit, to compare the two alternately in one harness; (a) stays this
    /// build's).
    #[arg(long, value_name = "FILE")]
    exe: Option<PathBuf>,
    /// Worker threads of the timed exports.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Also time an export with previews (ratio of the preview overhead).
    #[arg(long)]
    previews: bool,
    /// Measure only (a), the decode of the largest stage vs a plain read.
    #[arg(long)]
    decode_only: bool,
    /// Rounds of (b) and (c); their medians are compared.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Time only the rasterizer: a 5 000-triangle sphere at 512² (2×2 supersampling),
    /// one thread; no disc needed. With --disc, also the largest stage's preview grid.
    #[arg(long)]
    raster: bool,
    /// Measure the PNG encoder's settings (size against time, one thread) on
    /// high-entropy textures and, with --disc, on the disc's decoded textures.
    #[arg(long)]
    png: bool,
    /// With --png --disc: megabytes of the disc's decoded textures (RGBA) to encode.
    #[arg(long, default_value_t = 400.0, value_name = "MB")]
    png_mb: f64,
    /// The texture-heavy variant: bench a copy of --disc (written under the scratch
    /// folder) whose texture base levels are random bytes, the high-entropy textures
    /// detailed game art decodes to; the geometry is untouched.
    #[arg(long)]
    noisy_textures: bool,
}

/// Shown at the end of `--help`.
const EXAMPLES: &str = "\
Examples:
  xbg7-export demo --out out/                        synthetic demo disc, exported to out/
  xbg7-export --disc /media/dump --out out/          a dump holding hidden/Resource3D
  xbg7-export --disc game.iso --out out/             a disc image (XISO, XGD2, XGD3)
  xbg7-export --disc Stage_S01.xpr --out out/        one container
  xbg7-export --disc dump --out out/ --only 'Stage_S0*' -v
                                                     re-export some stages, keep the rest
  xbg7-export diff old/manifest.json new/manifest.json
  xbg7-export render Stage_S10.xpr -o grid.png

Exit status: 0 done (rejected resources are data), 1 diff/verify found a regression,
2 usage or I/O error, 3 the export completed but some outputs could not be written.";

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum DiffFormat {
    /// For a terminal: counts, then every change (coloured when stdout is a terminal).
    Text,
    /// For a pull-request comment: the summary, then tables of the changes.
    Markdown,
    /// For scripts: the whole comparison as one JSON document.
    Json,
    /// A page like OUT/index.html: gains, regressions, changed digests, previews of both sides.
    Html,
}

fn main() {
    let cli = Cli::parse();
    if cli.cmd.as_ref().is_some_and(prints_to_stdout) {
        quiet_on_closed_pipe();
    }
    let pipes = cli.cmd.as_ref().is_some_and(prints_to_stdout);
    match run(cli) {
        Ok(()) => {}
        // (Windows: a closed pipe is an error of the write, not a signal.)
        Err(e) if pipes && closed_pipe(&e) => std::process::exit(0),
        // Its message is printed already; the run's own status (after `run` returned, so
        // every temporary folder of the run has been removed).
        Err(e) if e.is::<ExitStatus>() => std::process::exit(e.downcast_ref::<ExitStatus>().map_or(2, |s| s.0)),
        Err(e) => {
            note!("xbg7-export: error: {e:#}");
            std::process::exit(2);
        }
    }
}

/// Whether the error, or any error under it, is a write to a closed pipe.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.downcast_ref::<std::io::Error>().is_some_and(pipe::is_closed_pipe))
}

/// A run that ends with this exit status, its message printed already.
#[derive(Debug)]
struct ExitStatus(i32);

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status {}", self.0)
    }
}

impl std::error::Error for ExitStatus {}

/// The subcommands whose output is text on stdout, made to be piped (`diff A B | head`).
/// The export, `synth` and `demo` write files and report on stderr: they keep Rust's
/// handling, so a closed stderr cannot end a half-written export.
fn prints_to_stdout(cmd: &Cmd) -> bool {
    !matches!(cmd, Cmd::Synth { .. } | Cmd::Demo { .. })
}

/// Let a closed stdout end the process quietly, as it ends any Unix tool: Rust ignores
/// SIGPIPE, so `println!` meets `EPIPE` and panics ("failed printing to stdout", exit 101
/// with a backtrace); with the default action restored the process just ends there.
/// Windows has no SIGPIPE: there a `print!` that meets a closed pipe (`ERROR_NO_DATA`,
/// `ERROR_PIPE_NOT_CONNECTED`) ends the process quietly from the panic hook, and a
/// write error that reaches `main` does so there ([`pipe::is_closed_pipe`]).
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; restoring a signal's
    // default disposition has no other effect on the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(not(unix))]
    {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload_as_str().is_some_and(pipe::is_closed_pipe_panic) {
                std::process::exit(0);
            }
            default(info);
        }));
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        None => {
            let (Some(disc), Some(out)) = (cli.export.disc, cli.export.out) else {
                bail!("need --disc DIR and --out DIR (or a subcommand; see --help)");
            };
            export(&disc, &out, &cli.export.common)
        }
        Some(Cmd::Synth(a)) => synth_cmd(a),
        Some(Cmd::Demo {
            out,
            seed,
            realism,
            common,
        }) => demo_cmd(&out, seed, realism, &common),
        Some(Cmd::Verify(a)) => verify_cmd(a),
        Some(Cmd::Diff(a)) => diff_cmd(a),
        Some(Cmd::Completions { shell }) => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "xbg7-export", &mut std::io::stdout());
            Ok(())
        }
        Some(Cmd::Bench(a)) => bench_cmd(a),
        Some(Cmd::Info { file, config, preview }) => {
            let cfg = load_config(config.as_deref())?;
            inspect::info(&file, &cfg, &mut std::io::stdout().lock())?;
            if let Some(png) = preview {
                render(&file, None, None, &png, &cfg)?;
            }
            Ok(())
        }
        Some(Cmd::Render {
            file,
            only,
            size,
            out,
            config,
        }) => {
            let cfg = load_config(config.as_deref())?;
            match out {
                Some(out) => render(&file, only.as_deref(), size, &out, &cfg),
                None => render_new(&file, only.as_deref(), size, &cfg),
            }
        }
    }
}

/// `synth`: the synthetic disc as a folder (`--out`), as a disc image (`--iso`), or both.
fn synth_cmd(a: SynthArgs) -> Result<()> {
    let SynthArgs {
        out,
        iso,
        xgd2,
        seed,
        scale,
        hostile,
        realism,
        multistream,
    } = a;
    let t = std::time::Instant::now();
    let opts = SynthOptions {
        seed,
        scale,
        realism,
        multistream,
    };
    if let Some(out) = &out {
        write_synth(out, &opts, hostile)?;
        note!(
            "synthetic disc written to {} in {:.1} s (ground truth: truth.json)",
            out.display(),
            t.elapsed().as_secs_f64()
        );
    }
    if let Some(iso) = &iso {
        // A fresh private folder (made exclusively, mode 0700), removed when dropped.
        let tmp = private_temp_dir("xbg7-export-iso-").context("creating a temporary folder for the image's files")?;
        let stage = tmp.path();
        let r = write_synth(stage, &opts, hostile).and_then(|()| {
            let res = stage.join("hidden");
            std::fs::rename(res.join("resource3d"), res.join("Resource3D"))?;
            note!("packing the image {} …", iso.display());
            xbg7_export::image::write_image(stage, iso, xgd2)
                .with_context(|| format!("writing the disc image {}", iso.display()))
        });
        drop(tmp);
        r?;
        note!(
            "synthetic disc image written to {} ({}) in {:.1} s",
            iso.display(),
            if xgd2 { "XGD2 partition offset" } else { "XISO" },
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// `demo`: the demo disc generated in a temporary folder, exported to `out`, removed.
/// The folder is a fresh private one (`tempfile`: a random name made exclusively, mode
/// 0700), so nobody else can plant a file or a link in it, and it goes when dropped —
/// also when the export fails or ends with status 3.
fn demo_cmd(out: &Path, seed: u64, realism: bool, common: &CommonArgs) -> Result<()> {
    let tmp = private_temp_dir("xbg7-export-demo-").context("creating the demo disc's temporary folder")?;
    synth::write_disc(
        tmp.path(),
        &SynthOptions {
            seed,
            scale: Scale::Demo,
            realism,
            multistream: false,
        },
    )
    .context("generating the demo disc")?;
    export(tmp.path(), out, common)
}

/// A fresh temporary folder `<temp>/<prefix><random>` only this user can enter: made
/// exclusively (an existing name, a planted link included, is never reused) with mode
/// 0700 on Unix; removed with what it holds when dropped.
fn private_temp_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o700));
    }
    b.tempdir()
}

/// `verify`: a synthetic disc against its truth; exit 1 on a wrong or missed resource.
fn verify_cmd(a: VerifyArgs) -> Result<()> {
    let VerifyArgs {
        disc,
        config,
        all,
        truth,
    } = a;
    let cfg = load_config(config.as_deref())?;
    let truth_path = truth.unwrap_or_else(|| disc.join("truth.json"));
    let bytes = xbg7_export::input::read_bounded(&truth_path, xbg7_export::input::MAX_TRUTH_BYTES, "a ground truth")
        .with_context(|| format!("reading {}", truth_path.display()))?;
    let truth = synth::parse_truth(&bytes, &truth_path)?;
    let t = std::time::Instant::now();
    let r = xbg7_export::verify::check_disc(&disc, &truth, &cfg);
    print!("{}", r.table());
    let limit = if all { usize::MAX } else { 10 };
    for line in r.problems().take(limit) {
        println!("  {line}");
    }
    for e in &r.container_errors {
        println!("  container: {e}");
    }
    note!("verified in {:.1} s", t.elapsed().as_secs_f64());
    if r.wrong() + r.missed() + r.container_errors.len() > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// `diff`: two manifests compared, rendered in the asked format to stdout or a file;
/// exit 1 on a regression unless allowed.
fn diff_cmd(a: DiffArgs) -> Result<()> {
    use xbg7_export::{diff, report};
    let DiffArgs {
        old,
        new,
        format,
        output,
        allow_regressions,
        max_chars,
    } = a;
    let (old_m, new_m) = (diff::load(&old)?, diff::load(&new)?);
    let d = diff::diff(&old_m, &new_m);
    let color = output.is_none() && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = match format {
        DiffFormat::Text => diff::render_text(&d, color),
        DiffFormat::Markdown => match max_chars {
            0 => diff::render_markdown(&d),
            cap => diff::render_markdown_capped(&d, cap),
        },
        DiffFormat::Json => diff::render_json(&d),
        DiffFormat::Html => {
            let page_dir = match output.as_deref().and_then(Path::parent) {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            // (A folder given stands for its manifest.json.)
            let file = |p: &Path| {
                if p.is_dir() {
                    p.join("manifest.json")
                } else {
                    p.to_path_buf()
                }
            };
            let (o, n) = (
                report::folder_prefix(&page_dir, &file(&old)),
                report::folder_prefix(&page_dir, &file(&new)),
            );
            report::render_diff(&d, &old_m, &new_m, o.as_deref(), n.as_deref())
        }
    };
    match &output {
        Some(p) => std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{text}"),
    }
    let code = diff::exit_code(&d, allow_regressions);
    if code != 0 {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(code);
    }
    Ok(())
}

/// `bench`: the PNG settings (`--png`), the rasterizer (`--raster`), or the decode and
/// export ratios of a disc (or of its texture-heavy copy), as JSON on stdout.
fn bench_cmd(a: BenchArgs) -> Result<()> {
    use xbg7_export::bench;
    let BenchArgs {
        disc,
        scratch,
        tmp,
        no_disk,
        exe,
        jobs,
        previews,
        decode_only,
        rounds,
        raster,
        png,
        png_mb,
        noisy_textures,
    } = a;
    if png {
        let mut rows = bench::png_settings("high_entropy", &bench::noisy_textures(24, 512));
        if let Some(disc) = &disc {
            let images = bench::disc_textures(disc, png_mb)?;
            rows.extend(bench::png_settings("disc", &images));
        }
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    if raster {
        println!("{}", serde_json::to_string_pretty(&bench::raster())?);
        if let Some(disc) = disc {
            let g = bench::raster_grid(&disc)?;
            println!("{}", serde_json::to_string_pretty(&g)?);
        }
        return Ok(());
    }
    let disc = disc.context("--disc is required")?;
    // A scratch folder of our own (no --scratch: a fresh private temp folder) goes when
    // the bench ends, with the texture-heavy copy in it; a given one keeps what the bench
    // leaves there.
    let own: tempfile::TempDir;
    let scratch = match scratch {
        Some(s) => {
            std::fs::create_dir_all(&s)?;
            s
        }
        None => {
            own = private_temp_dir("xbg7-bench-")?;
            own.path().to_path_buf()
        }
    };
    let disc = if noisy_textures {
        let to = scratch.join("noisy-disc");
        let n = bench::noisy_copy(&disc, &to)?;
        note!(
            "texture-heavy copy: {n} texture base levels randomised in {}",
            to.display()
        );
        to
    } else {
        disc
    };
    let tmp = match tmp {
        Some(t) => {
            std::fs::create_dir_all(&t)?;
            Some(t)
        }
        None => bench::default_tmp(),
    };
    let places = bench::BenchPlaces {
        tmp: tmp.as_deref(),
        scratch: &scratch,
        disk: !no_disk,
    };
    let exe = match exe {
        Some(e) => e,
        None => std::env::current_exe()?,
    };
    let r = bench::run(&exe, &disc, &places, jobs, previews, decode_only, rounds)?;
    for line in r.summary() {
        note!("{line}");
    }
    println!("{}", serde_json::to_string_pretty(&r)?);
    Ok(())
}

/// Write the synthetic disc (and the hostile files) into `out`, with progress on stderr.
fn write_synth(out: &Path, opts: &SynthOptions, hostile: bool) -> Result<()> {
    let progress = std::io::stderr().is_terminal();
    let spinner = if progress {
        indicatif::ProgressBar::new_spinner()
    } else {
        indicatif::ProgressBar::hidden()
    };
    spinner.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} elapsed {msg}").expect("static template"),
    );
    // The plan is cheap (counts, no geometry): it gives the totals to show, files and
    // (estimated) bytes.
    let plan = synth::file_plan(opts);
    let total = plan.len() as u64;
    let total_bytes: u64 = plan.iter().map(|f| f.estimated_size()).sum();
    let started = std::time::Instant::now();
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    // The generator reports nothing itself: show what it has written so far.
    let done = std::sync::atomic::AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        if progress {
            s.spawn(|| {
                let mut eta = xbg7_export::eta::Eta::new(xbg7_export::eta::SYNTH);
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    let (files, bytes) = tree_size(&out.join("hidden"));
                    // The time left by bytes, not files (the stages, most of the bytes,
                    // come after the models), at the rate since the models were done
                    // ([`xbg7_export::eta::SYNTH`]).
                    let left = match eta.update(bytes, total_bytes, started.elapsed()) {
                        Some(left) if files < total => format!(", {}", xbg7_export::eta::words(left)),
                        _ => String::new(),
                    };
                    spinner.set_message(format!(
                        "generating the synthetic disc: {files}/{total} files, {:.1} MB{left}",
                        bytes as f64 / 1e6
                    ));
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
            });
        }
        let r = synth::write_disc(out, opts)
            .map(|_| ())
            .with_context(|| format!("writing synthetic disc to {}", out.display()));
        let r = r.and_then(|()| {
            if hostile {
                let n = synth::hostile::write_hostile(out, opts)
                    .with_context(|| format!("writing hostile files to {}", out.display()))?
                    .len();
                spinner.suspend(|| {
                    note!(
                        "{} added (see hostile.json)",
                        plural(n, "hostile file", "hostile files")
                    )
                });
            }
            Ok(())
        });
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    spinner.finish_and_clear();
    r
}

/// Files and bytes below `dir` (0, 0 when it does not exist yet).
fn tree_size(dir: &Path) -> (u64, u64) {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(n, b), e| (n + 1, b + e.metadata().map_or(0, |m| m.len())))
}

fn load_config(path: Option<&Path>) -> Result<Config> {
    Ok(match path {
        Some(p) => Config::load(p)?,
        None => Config::default(),
    })
}

fn export(disc: &Path, out: &Path, common: &CommonArgs) -> Result<()> {
    let mut cfg = load_config(common.config.as_deref())?;
    if let Some(f) = common.format {
        cfg.output.format = match f {
            FormatArg::Gltf => xbg7_export::config::Format::Gltf,
            FormatArg::Glb => xbg7_export::config::Format::Glb,
        };
    }
    if common.no_report {
        cfg.output.report = false;
    }
    if common.textures {
        cfg.output.texture_files = true;
    }
    let only = match common.only.as_slice() {
        [] => None,
        globs => Some(export::Only::new(globs).with_context(|| format!("bad --only glob in {globs:?}"))?),
    };
    let opts = ExportOptions {
        jobs: common.jobs,
        only,
        previews: !common.no_previews,
        progress: !common.quiet && std::io::stderr().is_terminal(),
        verbose: common.verbose,
    };
    let t = std::time::Instant::now();
    let run = export::export_run(disc, out, &cfg, &opts)?;
    if !common.quiet {
        print_summary(&run, opts.only.is_some(), out, t.elapsed().as_secs_f64());
    }
    if let Some(first) = run.unwritten.first() {
        // A disc file name, shown as the manifest names it with control characters escaped.
        note!(
            "xbg7-export: error: outputs of {} could not be written (first: {}; \
             the manifest lists each with its error)",
            plural(run.unwritten.len(), "container", "containers"),
            xbg7_export::text::clean(first)
        );
        return Err(ExitStatus(EXIT_UNWRITTEN).into());
    }
    Ok(())
}

/// Exit status of a run that completed (manifest written) but could not write some
/// outputs: a full or read-only disk must not look like a clean run.
const EXIT_UNWRITTEN: i32 = 3;

/// The end of a run on stdout: what it exported (with `--only`: this run's containers, then
/// what was kept and what the manifest now lists), then the file to open. The run is over
/// and its manifest written: a reader that went away (`… | true`) or a full stdout ends
/// the printing, never the run's status.
fn print_summary(run: &export::Exported, only: bool, out: &Path, secs: f64) {
    use std::io::Write;
    let mut lines = summary_lines(run, only, secs);
    // The last line: what to open (the report, or the manifest without one).
    let report = out.join("index.html");
    let open = if report.is_file() {
        report
    } else {
        out.join("manifest.json")
    };
    lines.push(open.display().to_string());
    let mut stdout = std::io::stdout().lock();
    for line in lines {
        if writeln!(stdout, "{line}").is_err() {
            return;
        }
    }
}

/// The summary's lines before the file to open (see [`print_summary`]).
fn summary_lines(run: &export::Exported, only: bool, secs: f64) -> Vec<String> {
    let m = &run.manifest;
    if !only {
        return vec![summary_line(&m.summary, secs)];
    }
    let this: std::collections::HashSet<&str> = run.exported.iter().map(String::as_str).collect();
    let ran: Vec<_> = m
        .containers
        .iter()
        .filter(|c| this.contains(c.path.as_str()))
        .cloned()
        .collect();
    let t = &m.summary.total;
    let kept = match m.containers.len() - ran.len() {
        0 => "nothing else kept: the manifest lists this run's files only".to_string(),
        kept => format!(
            "{} as the earlier run left them; the manifest lists {}, {}",
            plural(kept, "other file kept", "other files kept"),
            plural(t.files, "file", "files"),
            plural(t.resources, "resource", "resources"),
        ),
    };
    vec![
        format!("this run: {}", summary_line(&manifest::summarize(&ran), secs)),
        kept,
    ]
}

/// "188 files, 866 resources: 845 decoded, 21 rejected (models …, stages …); 0 file
/// errors; 2.1 s".
fn summary_line(s: &manifest::Summary, secs: f64) -> String {
    let kinds: Vec<String> = s
        .kinds
        .iter()
        .map(|(k, c)| format!("{k}s {}/{}", c.decoded, c.resources))
        .collect();
    format!(
        "{}, {}: {} decoded, {} rejected ({}); {}; {:.1} s",
        plural(s.total.files, "file", "files"),
        plural(s.total.resources, "resource", "resources"),
        s.total.decoded,
        s.total.rejected,
        kinds.join(", "),
        plural(s.total.file_errors, "file error", "file errors"),
        secs,
    )
}

/// `render` (and `info --preview`): the container's preview written to `out`, with a
/// note when the grid is capped and a summary line on stderr.
fn render(file: &Path, only: Option<&str>, size: Option<u32>, out: &Path, cfg: &Config) -> Result<()> {
    render_with(file, only, size, out, cfg, |png| {
        std::fs::write(out, png).with_context(|| format!("writing {}", out.display()))
    })
}

/// [`render`], the PNG's bytes given to `write`.
fn render_with(
    file: &Path,
    only: Option<&str>,
    size: Option<u32>,
    out: &Path,
    cfg: &Config,
    write: impl FnOnce(&[u8]) -> Result<()>,
) -> Result<()> {
    let r = inspect::render(file, only, size, cfg)?;
    if let Some((shown, cells)) = r.capped {
        note!(
            "{}: the grid shows the first {shown} of {cells} cells (its budget is {} pixels)",
            file.display(),
            xbg7_preview::preview::MAX_GRID_PIXELS
        );
    }
    write(&r.png)?;
    note!(
        "{}: {} of {} resources decoded → {}",
        file.display(),
        r.decoded,
        r.picked,
        out.display()
    );
    Ok(())
}

/// `render` without `-o`: `<FILE's stem>.png` in the current folder, refused when a file
/// of that name is there (it may be the user's; `-o` overwrites on purpose).
fn render_new(file: &Path, only: Option<&str>, size: Option<u32>, cfg: &Config) -> Result<()> {
    let Some(stem) = file.file_stem() else {
        bail!(
            "{} has no file name to name the PNG after; give -o OUT.png",
            file.display()
        );
    };
    let mut name = stem.to_os_string();
    name.push(".png");
    let out = PathBuf::from(name);
    let exists = |out: &Path| {
        anyhow!(
            "{} already exists (render names its PNG after FILE and never overwrites); give -o {} \
             to overwrite it, or another -o",
            out.display(),
            out.display()
        )
    };
    if out.symlink_metadata().is_ok() {
        return Err(exists(&out));
    }
    render_with(file, only, size, &out, cfg, |png| {
        use std::io::Write;
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&out) {
            Ok(mut f) => f.write_all(png).with_context(|| format!("writing {}", out.display())),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists(&out)),
            Err(e) => Err(e).with_context(|| format!("writing {}", out.display())),
        }
    })
}
