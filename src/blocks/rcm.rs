//! RCM, regional congestion mitigation: CRD samplers, CFR CAMs, the RCC window scheduler and
//! SAR per switch port (docs/blocks/rcm.md), and the helpers `switchcraft rcm window` and
//! `switchcraft rcm degree`.

use super::{def, generator, port_width, Block, FormalSettings, InputGenerator};
use crate::cli::Failure;
use crate::synth::{Ice40Resources, StateBits};
use clap::{Args, FromArgMatches, Subcommand};
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::feedback::FB_QUANT_MAX;
use switchcraft_model::rcm::calc::{self, Window};
use switchcraft_model::rcm::{self, Rcm, RcmConfig, RcmWorkload, GD_ONE};
use switchcraft_model::units::parse_bytes;
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct RcmBlock;

impl Block for RcmBlock {
    type Config = RcmConfig;
    type Model = Rcm;

    fn stem(&self) -> &'static str {
        "rcm"
    }

    fn presets(&self) -> &'static [&'static str] {
        rcm::PRESETS
    }

    fn preset(&self, name: &str) -> Option<RcmConfig> {
        RcmConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<RcmConfig, InputError> {
        RcmConfig::from_toml(text, name)
    }

    fn describe(&self, c: &RcmConfig) -> String {
        format!(
            "{} ports, {}-bit depths, {}-bit flow IDs, CAMs of {}, Q_eq {}, w {}, T_cn {} / \
             T_rcf {} / T_meas {} x {} cycles, Gd {}/65536, Wc_min {}",
            c.ports,
            c.depth_bits,
            c.fid_bits,
            c.cam_depth,
            c.q_eq,
            c.w,
            c.t_cn,
            c.t_rcf,
            c.t_meas,
            1u64 << c.ts_shift,
            c.gd,
            c.wc_min
        )
    }

    fn schema(&self, c: &RcmConfig) -> PortSchema {
        rcm::port_schema(c)
    }

    fn regmap(&self, c: &RcmConfig) -> RegMap {
        rcm::regmap(c)
    }

    fn model(&self, c: &RcmConfig) -> Rcm {
        Rcm::new(c).expect("validated config")
    }

    fn package(&self, c: &RcmConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::rcm::package(c, instance, command, tech)
    }

    fn workload(&self, c: &RcmConfig, seed: u64) -> InputGenerator {
        let mut w = RcmWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    fn formal_defines(&self, c: &RcmConfig) -> Vec<(String, String)> {
        let schema = rcm::port_schema(c);
        vec![
            def("SC_PB", port_width(&schema, "oq_port")),
            def("SC_CB", port_width(&schema, "idr_index")),
            def("SC_DB", c.depth_bits),
            def("SC_LB", c.len_bits),
            def("SC_FB", c.fid_bits),
            def("SC_PORTS", c.ports),
            def("SC_D", c.cam_depth),
            def("SC_WC_MIN", c.wc_min),
            def("SC_T_RCF", c.t_rcf),
            def("SC_TSB", c.ts_bits),
            def(
                "SC_WINDOW_MASK",
                format!("32'h{:x}", switchcraft_core::mask(c.window_bits)),
            ),
            def(
                "SC_TS_MASK",
                format!("32'h{:x}", switchcraft_core::mask(c.ts_bits)),
            ),
            def("SC_INIT", c.init_cycles()),
            def("SC_SAMPLE_DELAY", rcm::SAMPLE_DELAY),
            def("SC_PORT_LATENCY", rcm::PORT_LATENCY),
        ]
    }

    /// The properties state which flows are harmful from ghost CAMs and lists, so they need
    /// short timers and a short reset sweep: formal/rcm/rcm_formal.toml. Depth 9 is the first
    /// at which the RCC changes R in port 0's view (a CN at edge 0, the measurement from the
    /// visit of edge 2, the window from edge 4, the view's read at edge 6); the inductive
    /// assertions need 4 steps past the views' lag.
    fn formal(&self) -> FormalSettings {
        FormalSettings {
            depth: 9,
            k: 4,
            config: Some("formal/rcm/rcm_formal.toml"),
        }
    }

    /// Each `oq` event is a packet arriving at an output queue.
    fn packet_bus(&self) -> &'static str {
        "oq"
    }

    /// CNs come from a neighbour switch: a link can lose or repeat them.
    fn message_buses(&self) -> &'static [&'static str] {
        &["cnr", "cni"]
    }

    fn key_name(&self) -> &'static str {
        "port"
    }

    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "paper"]
    }

    fn preset_timing(&self, preset: &str) -> Option<String> {
        Some(
            match preset {
                "fpga" => "100 MHz clock, 25G links; timestamps of 160 ns: T_cn 5 us, T_rcf 50 us, T_meas 2 us",
                "paper" => {
                    "1000 MHz clock (1 GHz, assumed), 100G links; timestamps of 16 ns: T_cn 5 us, \
                     T_rcf 50 us, T_meas 2 us, SAR's window 20 us"
                }
                _ => "no clock or link: sizes and times chosen to exercise the logic",
            }
            .into(),
        )
    }

    fn state_bits(&self, c: &RcmConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/rcm.rs: per physical port (2^port_bits) the VOQ words of its input
        // (2^port_bits of them) and its output queue's word, each {counter 24, q_old depth};
        // the port registers; the two CAM segments of cam_depth entries (valid + ID). Times and
        // byte counters are 32-bit containers written masked to ts_bits and window_bits, so
        // their high bits are constant zero and synthesis removes them (checked in the
        // flattened netlist: `tiny` keeps 12 b per time and 16 b per window register).
        let depth = u64::from(c.depth_bits);
        let ts = u64::from(c.ts_bits);
        let wb = u64::from(c.window_bits);
        let slots = 1u64 << c.port_bits();
        let word = 24 + depth;
        let regs = 1 + 4 + 1 + ts + 6 + 6 + 1 + 6 + 1 + ts + 2 + ts + 4 * wb + 17 + 5 + 5;
        let cams = 2 * u64::from(c.cam_depth) * (u64::from(c.fid_bits) + 1);
        let per_physical = (slots + 1) * word + regs + cams;
        // The spec's fields (§4.2) at this config's widths: q_old and samp_ctr per queue (the
        // port's VOQs and its output queue), lcf, rcf + its age, Fbr, Fbp, role, the CAM and
        // the received list (valid + ID), W, Wc, Wnc, sent_c, sent_all, R and rcc_on.
        let ports = u64::from(c.ports);
        let samp = u64::from(c.samp_bits);
        let wbits = u64::from(c.window_bits);
        let spec = (ports + 1) * (depth + samp)
            + 1
            + 1
            + u64::from(c.ts_bits)
            + 6
            + 6
            + 2
            + cams
            + 5 * wbits
            + 17
            + 1;
        let asic = (ports + 1) * (depth + samp) + regs + cams;
        let measured = core.dff + core.memory_bits;
        StateBits {
            keys: ports,
            physical_keys: slots,
            measured_bits: measured,
            measured_per_key: measured as f64 / ports as f64,
            architectural_per_physical_key: per_physical,
            architectural_per_key: (per_physical * slots) as f64 / ports as f64,
            asic_per_physical_key: Some(asic),
            architecture: format!(
                "per physical port: {} sampler words of {word} b (its VOQs and its output \
                 queue), {regs} b of port registers (times of {ts} b, byte counters of {wb} b), two \
                 CAM segments of {} x {} b = {per_physical} b ({slots} physical for {ports} \
                 ports)",
                slots + 1,
                c.cam_depth,
                c.fid_bits + 1
            ),
            spec_per_key: Some(spec),
            spec_note: format!(
                "§4.2 of ../shared/spec/mechanisms.md at this config's widths: Qold + samp_ctr \
                 per queue ({} queues), lcf, rcf + age, Fbr, Fbp, role, CAM and received list \
                 ({} x {} b each), W, Wc, Wnc, sent_c, sent_all, R, rcc_on = {spec} b",
                ports + 1,
                c.cam_depth,
                c.fid_bits + 1
            ),
        }
    }

    fn command(&self) -> Option<clap::Command> {
        Some(RcmCommand::augment_subcommands(
            clap::Command::new("rcm")
                .about(
                    "RCM helpers: the RCC's window reduction (Eq. 4-6) and Eq. 2's regional degree",
                )
                .subcommand_required(true),
        ))
    }

    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure> {
        match RcmCommand::from_arg_matches(matches).map_err(|e| Failure::Input(e.to_string()))? {
            RcmCommand::Window(a) => rcm_window(&a),
            RcmCommand::Degree(a) => rcm_degree(&a),
        }
    }
}

#[derive(Subcommand, Debug)]
enum RcmCommand {
    /// One RCC reduction (Eq. 4-6): Wc <- max(Wc (1 - Fb Gd), Wc_min), Wnc = W - Wc, the
    /// harmful share, and the largest cut Gd allows.
    Window(WindowArgs),
    /// Eq. 2: Fb' = (1 - w) Fb + w Fbr with w = 2^-w_shift.
    Degree(DegreeArgs),
}

#[derive(Args, Debug)]
struct WindowArgs {
    /// The window W (bytes: 65536, 64KB, 64KiB).
    #[arg(long)]
    w: String,
    /// The harmful flows' window Wc before the reduction.
    #[arg(long)]
    wc: String,
    /// The quantised congestion degree Fb (0..63).
    #[arg(long)]
    fb: u64,
    /// Gd in Q0.16 (520 = 1/126, the exact rule for 6-bit Fb; 512 = 1/128), or a fraction 1/N.
    #[arg(long, default_value = "520")]
    gd: String,
    /// The floor Wc_min.
    #[arg(long, default_value = "1500")]
    wc_min: String,
}

#[derive(Args, Debug)]
struct DegreeArgs {
    /// The local degree Fb (0..63).
    #[arg(long)]
    fb: u64,
    /// The remote degree Fbr of the last CN (0..63).
    #[arg(long)]
    fbr: u64,
    /// w = 2^-w_shift (0..6; 1: w = 1/2).
    #[arg(long, default_value_t = 1)]
    w_shift: u32,
}

/// Gd as Q0.16, from `520` or `1/126`.
fn parse_gd(text: &str) -> Result<u64, Failure> {
    let bad = || {
        Failure::Input(format!(
            "--gd {text}: not a Q0.16 value (0..=65536) or a fraction 1/N"
        ))
    };
    let gd = match text.split_once('/') {
        Some(("1", n)) => {
            let n: u64 = n.trim().parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            (GD_ONE as f64 / n as f64).round() as u64
        }
        Some(_) => return Err(bad()),
        None => text.trim().parse().map_err(|_| bad())?,
    };
    if gd > GD_ONE {
        return Err(bad());
    }
    Ok(gd)
}

fn fb_arg(name: &str, v: u64) -> Result<u64, Failure> {
    if v > FB_QUANT_MAX {
        return Err(Failure::Input(format!(
            "--{name} {v}: a quantised degree is 0..={FB_QUANT_MAX}"
        )));
    }
    Ok(v)
}

fn rcm_window(a: &WindowArgs) -> Result<(), Failure> {
    let bytes = |flag: &str, text: &str| {
        parse_bytes(text).map_err(|e| Failure::Input(format!("--{flag} {text}: {e}")))
    };
    let (w, wc, wc_min) = (
        bytes("w", &a.w)?,
        bytes("wc", &a.wc)?,
        bytes("wc-min", &a.wc_min)?,
    );
    let fb = fb_arg("fb", a.fb)?;
    let gd = parse_gd(&a.gd)?;
    if wc > w {
        return Err(Failure::Input(format!(
            "--wc {wc}: the harmful window cannot exceed W ({w}) (Eq. 3: W = Wc + Wnc)"
        )));
    }
    let r = Window::reduce(w, wc, fb, gd, wc_min);
    let cut = calc::cut(fb, gd) as f64 / GD_ONE as f64;
    println!("Fb x Gd      {cut:.6} ({fb} x {gd}/65536)");
    println!("Wc           {wc} -> {} B (floor {wc_min} B)", r.wc);
    println!("Wnc          {} -> {} B", w.saturating_sub(wc), r.wnc);
    println!("W            {w} B");
    println!(
        "harmful share {:.2} % -> {:.2} %",
        100.0 * wc as f64 / w as f64,
        100.0 * r.harmful_share()
    );
    println!(
        "largest cut  {:.2} % (Fb = 63; the paper's rule Fb_max Gd = 1/2 is 50 %)",
        100.0 * calc::max_cut(gd)
    );
    Ok(())
}

fn rcm_degree(a: &DegreeArgs) -> Result<(), Failure> {
    let (fb, fbr) = (fb_arg("fb", a.fb)?, fb_arg("fbr", a.fbr)?);
    if a.w_shift > 6 {
        return Err(Failure::Input(format!(
            "--w-shift {}: must be in 0..=6 (w = 1 .. 1/64)",
            a.w_shift
        )));
    }
    let fbp = calc::regional_degree(fb, fbr, a.w_shift);
    println!(
        "Fb' = (1 - w) Fb + w Fbr = {fbp}   (Fb {fb}, Fbr {fbr}, w = 1/{})",
        1u64 << a.w_shift
    );
    Ok(())
}
