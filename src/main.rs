//! The `xbg7-export` command line: export a disc, generate the synthetic disc, run the
//! demo, inspect or render one container. `anyhow` lives here only.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use xbg7_export::config::Config;
use xbg7_export::manifest::Manifest;
use xbg7_export::pipeline::{self, ExportOptions};
use xbg7_export::synth::{self, Scale, SynthOptions};

#[derive(Parser, Debug)]
#[command(
    name = "xbg7-export",
    version,
    about = "Project Sylpheed XPR2/XBG7 models → glTF 2.0",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(flatten)]
    export: ExportArgs,
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(clap::Args, Debug, Clone)]
struct ExportArgs {
    /// Disc root (containing hidden/resource3d) or the resource3d folder itself.
    #[arg(long)]
    disc: Option<PathBuf>,
    /// Output folder (created; must not be inside --disc).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(clap::Args, Debug, Clone)]
struct CommonArgs {
    /// Pipeline configuration (default: built-in defaults, as in pipeline.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Only containers whose file name matches this glob (e.g. 'Stage_S0*').
    #[arg(long)]
    only: Option<String>,
    /// Do not write PNG previews.
    #[arg(long)]
    no_previews: bool,
    /// No progress bar and no summary line.
    #[arg(long)]
    quiet: bool,
    /// Output format: gltf (.gltf + .bin, the default) or glb (one self-contained .glb).
    /// Overrides `output.format` of the configuration.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum FormatArg {
    Gltf,
    Glb,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Generate the synthetic disc (with ground truth in DIR/truth.json).
    Synth {
        #[arg(long)]
        out: PathBuf,
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
    },
    /// Generate the demo disc in a temporary folder and export it to --out.
    Demo {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Generate the demo disc with the imperfection families (see `synth --realism`).
        #[arg(long)]
        realism: bool,
        #[command(flatten)]
        common: CommonArgs,
    },
    /// Measure decode and export time as ratios to the I/O floor (see docs/performance.md).
    Bench {
        /// Disc to measure (generate one with `synth --scale full`).
        #[arg(long, required_unless_present_any = ["raster", "png"])]
        disc: Option<PathBuf>,
        /// Scratch folder for the output trees (default: a temp dir).
        #[arg(long)]
        scratch: Option<PathBuf>,
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
    },
    /// Decode a synthetic disc and compare every resource with its truth.json
    /// (exit 1 if any decoded resource differs from the truth or an expected one is missed).
    Verify {
        #[arg(long)]
        disc: PathBuf,
        #[arg(long)]
        config: Option<PathBuf>,
        /// List every missed resource (default: the first 10).
        #[arg(long)]
        all: bool,
        /// Ground truth to compare with (default: DISC/truth.json), e.g. a truth.json
        /// regenerated by a newer generator for a disc whose bytes it reproduces.
        #[arg(long)]
        truth: Option<PathBuf>,
    },
    /// Compare two manifests: gains, regressions, coverage. Exit 0 = no regression,
    /// 1 = regression (unless --allow-regressions), 2 = usage or I/O error.
    Diff {
        old: PathBuf,
        new: PathBuf,
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Exit 0 even when there are regressions.
        #[arg(long)]
        allow_regressions: bool,
    },
    /// Show a container's directory, declarations, records and per-resource outcome.
    Info {
        file: PathBuf,
        #[arg(long)]
        config: Option<PathBuf>,
        /// Also write a PNG preview of the container to this path.
        #[arg(long)]
        preview: Option<PathBuf>,
    },
    /// Render one container to PNG: a model, or a grid of its resources (stages).
    Render {
        file: PathBuf,
        /// Only resources whose name matches this glob.
        #[arg(long)]
        only: Option<String>,
        /// Image size (model) or cell size (grid) in pixels.
        #[arg(long)]
        size: Option<u32>,
        #[arg(short = 'o', long)]
        out: PathBuf,
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum DiffFormat {
    Text,
    Markdown,
    Json,
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("xbg7-export: error: {e:#}");
            std::process::exit(2);
        }
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
        Some(Cmd::Synth {
            out,
            seed,
            scale,
            hostile,
            realism,
        }) => {
            let t = std::time::Instant::now();
            let opts = SynthOptions { seed, scale, realism };
            synth::write_disc(&out, &opts).with_context(|| format!("writing synthetic disc to {}", out.display()))?;
            if hostile {
                let n = synth::hostile::write_hostile(&out, &opts)
                    .with_context(|| format!("writing hostile files to {}", out.display()))?
                    .len();
                eprintln!("{n} hostile files added (see hostile.json)");
            }
            eprintln!(
                "synthetic disc written to {} in {:.1} s (ground truth: truth.json)",
                out.display(),
                t.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Some(Cmd::Demo {
            out,
            seed,
            realism,
            common,
        }) => {
            let tmp = std::env::temp_dir().join(format!("xbg7-export-demo-{}-{seed}", std::process::id()));
            synth::write_disc(
                &tmp,
                &SynthOptions {
                    seed,
                    scale: Scale::Demo,
                    realism,
                },
            )
            .context("generating the demo disc")?;
            let r = export(&tmp, &out, &common);
            let _ = std::fs::remove_dir_all(&tmp);
            r
        }
        Some(Cmd::Verify {
            disc,
            config,
            all,
            truth,
        }) => {
            let cfg = load_config(config.as_deref())?;
            let truth = synth::load_truth(&truth.unwrap_or_else(|| disc.join("truth.json")))?;
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
            eprintln!("verified in {:.1} s", t.elapsed().as_secs_f64());
            if r.wrong() + r.missed() + r.container_errors.len() > 0 {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(Cmd::Diff {
            old,
            new,
            format,
            allow_regressions,
        }) => {
            use xbg7_export::diff;
            let d = diff::diff(&diff::load(&old)?, &diff::load(&new)?);
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let text = match format {
                DiffFormat::Text => diff::render_text(&d, color),
                DiffFormat::Markdown => diff::render_markdown(&d),
                DiffFormat::Json => diff::render_json(&d),
            };
            print!("{text}");
            let code = diff::exit_code(&d, allow_regressions);
            if code != 0 {
                use std::io::Write;
                let _ = std::io::stdout().flush();
                std::process::exit(code);
            }
            Ok(())
        }
        Some(Cmd::Bench {
            disc,
            scratch,
            jobs,
            previews,
            decode_only,
            rounds,
            raster,
            png,
        }) => {
            if png {
                let mut rows =
                    xbg7_export::bench::png_settings("high_entropy", &xbg7_export::bench::noisy_textures(24, 512));
                if let Some(disc) = &disc {
                    let images = xbg7_export::bench::disc_textures(disc, 400.0)?;
                    rows.extend(xbg7_export::bench::png_settings("disc", &images));
                }
                println!("{}", serde_json::to_string_pretty(&rows)?);
                return Ok(());
            }
            if raster {
                println!("{}", serde_json::to_string_pretty(&xbg7_export::bench::raster())?);
                if let Some(disc) = disc {
                    let g = xbg7_export::bench::raster_grid(&disc)?;
                    println!("{}", serde_json::to_string_pretty(&g)?);
                }
                return Ok(());
            }
            let disc = disc.context("--disc is required")?;
            let scratch =
                scratch.unwrap_or_else(|| std::env::temp_dir().join(format!("xbg7-bench-{}", std::process::id())));
            std::fs::create_dir_all(&scratch)?;
            let r = xbg7_export::bench::run(&disc, &scratch, jobs, previews, decode_only, rounds)?;
            println!("{}", serde_json::to_string_pretty(&r)?);
            Ok(())
        }
        Some(Cmd::Info { file, config, preview }) => {
            let cfg = load_config(config.as_deref())?;
            info(&file, &cfg)?;
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
        }) => render(&file, only.as_deref(), size, &out, &load_config(config.as_deref())?),
    }
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
    let only = match &common.only {
        Some(g) => Some(
            globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .build()
                .with_context(|| format!("bad --only glob {g:?}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    let opts = ExportOptions {
        jobs: common.jobs,
        only,
        previews: !common.no_previews,
        progress: !common.quiet && std::io::stderr().is_terminal(),
    };
    let t = std::time::Instant::now();
    let m = pipeline::export(disc, out, &cfg, &opts)?;
    if !common.quiet {
        print_summary(&m, out, t.elapsed().as_secs_f64());
    }
    Ok(())
}

fn print_summary(m: &Manifest, out: &Path, secs: f64) {
    let s = &m.summary;
    let kinds: Vec<String> = s
        .kinds
        .iter()
        .map(|(k, c)| format!("{k}s {}/{}", c.decoded, c.resources))
        .collect();
    println!(
        "{} files, {} resources: {} decoded, {} rejected ({}); {} file errors; {:.1} s → {}",
        s.total.files,
        s.total.resources,
        s.total.decoded,
        s.total.rejected,
        kinds.join(", "),
        s.total.file_errors,
        secs,
        out.join("manifest.json").display()
    );
}

fn info(file: &Path, cfg: &Config) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let c = pipeline::parse_container(&bytes).map_err(|r| anyhow::anyhow!("{r}"))?;
    println!(
        "{}: XPR2 header_size {:#x}, data at {:#x} ({} bytes), {} resources",
        file.display(),
        c.header_size,
        c.data_start,
        c.data_size,
        c.resources.len()
    );
    for r in &c.resources {
        println!(
            "  [{:3}] {} {:?} desc {:#x}+{}",
            r.index,
            r.tag_str(),
            r.name_lossy(),
            r.descriptor_offset,
            r.descriptor.len()
        );
        if r.is(xbg7_export::container::TAG_XBG7) {
            match xbg7_export::descriptor::parse(r.descriptor) {
                Ok(d) => {
                    println!(
                        "        marker @{:#x}: {} indices, {} vertices; {}",
                        d.marker_offset,
                        d.index_count,
                        d.vertex_count,
                        pipeline::describe_declaration(&d.decl)
                    );
                    for rec in &d.records {
                        println!(
                            "        record @{:#x}: vtx {} idx {} tail {}",
                            rec.offset, rec.vtx_count, rec.idx_count, rec.tail
                        );
                    }
                }
                Err(e) => println!("        descriptor: {e}"),
            }
        }
    }
    let d = pipeline::decode_container(&bytes, pipeline::kind_of(&name), cfg).map_err(|r| anyhow::anyhow!("{r}"))?;
    for r in &d.resources {
        match &r.result {
            Ok(dr) => println!(
                "  [{:3}] decoded ({:?}) at {:#x}: {} vertices, {} triangles, {} sub-meshes",
                r.index,
                dr.layout,
                dr.placements[0].index_offset,
                dr.mesh.vertex_count(),
                dr.mesh.triangle_count(),
                dr.mesh.primitives.len()
            ),
            Err(reason) => println!("  [{:3}] rejected: {reason}", r.index),
        }
    }
    Ok(())
}

/// Decode one container and write its preview: the model itself when exactly one
/// resource decodes (and it is a model file), otherwise a grid in directory order.
fn render(file: &Path, only: Option<&str>, size: Option<u32>, out: &Path, cfg: &Config) -> Result<()> {
    use xbg7_export::{preview, raster};

    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = pipeline::kind_of(&name);
    let d = pipeline::decode_container(&bytes, kind, cfg).map_err(|r| anyhow::anyhow!("{r}"))?;
    let glob = match only {
        Some(g) => Some(
            globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .build()?
                .compile_matcher(),
        ),
        None => None,
    };
    let picked: Vec<_> = d
        .resources
        .iter()
        .filter(|r| {
            glob.as_ref()
                .is_none_or(|g| g.is_match(String::from_utf8_lossy(&r.name).as_ref()))
        })
        .collect();
    if picked.is_empty() {
        bail!("no resource of {} matches", file.display());
    }
    let decoded: Vec<_> = picked.iter().filter_map(|r| r.result.as_ref().ok()).collect();
    // The `_col` albedos, as the export's previews use them (decode_container parsed the
    // same bytes, so the parse cannot fail here).
    let albedos = pipeline::parse_container(&bytes)
        .map(|c| {
            let albedos = xbg7_export::texture::export::decode_albedos(&c);
            pipeline::prepare_albedos(&albedos, pipeline::preview_texture_side(kind, cfg))
        })
        .unwrap_or_default();
    let img = if kind == xbg7_export::manifest::Kind::Model && picked.len() == 1 && decoded.len() == 1 {
        let opts = raster::RenderOptions {
            size: size.unwrap_or(cfg.output.preview_size),
            ..Default::default()
        };
        let m = &decoded[0].mesh;
        raster::render_mesh_textured(m, &opts, &pipeline::mesh_albedo(m, &albedos))
    } else {
        let cells = pipeline::textured_grid_cells(picked.iter().copied(), &albedos);
        let opts = raster::RenderOptions::default();
        preview::stage_grid(
            &cells,
            size.unwrap_or(cfg.output.stage_cell),
            cfg.output.stage_max_width,
            &opts,
        )
    };
    std::fs::write(out, raster::encode_png(&img)).with_context(|| format!("writing {}", out.display()))?;
    eprintln!(
        "{}: {} of {} resources decoded → {}",
        file.display(),
        decoded.len(),
        picked.len(),
        out.display()
    );
    Ok(())
}
