//! Verilog packaging: turns rust-hdl's export of a block into files a user drops into a project.
//!
//! rust-hdl names its top module `top` and every submodule `top$<field>`; two exports in one
//! project would collide. Packaging renames them with a per-instance prefix (`<instance>__`),
//! adds an ANSI wrapper `<instance>_top` whose ports are exactly the block's port schema
//! (clock `clk`, synchronous active-high reset `rst`), and a header naming the command that made
//! the file and a digest of the config. Output is deterministic: no dates, stable order.

use switchcraft_core::csr::RegMap;
use switchcraft_core::{axil, fnv1a64, Dir, PortSchema};

/// Files generated for one block instance.
pub struct Package {
    /// Instance name, e.g. `pfc_tiny`; file stem and module prefix.
    pub instance: String,
    /// `<instance>.v`: the wrapper plus the prefixed core modules.
    pub verilog: String,
    /// `<instance>.ports.json`: the port manifest.
    pub manifest: String,
    /// `<instance>_csr.h`: register offsets for driver software.
    pub c_header: String,
    /// `<instance>.gtkw`: GTKWave view of the ports in a model VCD (scope `<block>`).
    pub gtkw_model: String,
    /// `<instance>.rtl.gtkw`: the same view of a Verilator trace (scope `TOP`).
    pub gtkw_rtl: String,
    /// `<instance>.vlt`: Verilator lint waivers of `<instance>.v`, each with its reason.
    pub vlt: String,
    /// `<instance>.core`: the FuseSoC (CAPI2) core of the instance.
    pub fusesoc: String,
    /// Cycles `rst` must be held (ports.json `reset_cycles`).
    pub reset_cycles: u32,
}

impl Package {
    pub fn top(&self) -> String {
        format!("{}_top", self.instance)
    }

    /// The top with an AXI4-Lite slave in place of the CSR bus.
    pub fn axil_top(&self) -> String {
        format!("{}_axil_top", self.instance)
    }

    /// Every file of the package: (file name, contents).
    pub fn files(&self) -> [(String, &str); 7] {
        let i = &self.instance;
        [
            (format!("{i}.v"), &self.verilog),
            (format!("{i}.vlt"), &self.vlt),
            (format!("{i}.core"), &self.fusesoc),
            (format!("{i}.ports.json"), &self.manifest),
            (format!("{i}_csr.h"), &self.c_header),
            (format!("{i}.gtkw"), &self.gtkw_model),
            (format!("{i}.rtl.gtkw"), &self.gtkw_rtl),
        ]
    }

    /// Writes every file of the package into `dir` (created if missing); returns their paths.
    /// All or nothing: every file is written under a temporary name before any is moved into
    /// place, so a target that cannot be written (a directory, a device) leaves nothing
    /// behind. The error names the file.
    pub fn write_to(
        &self,
        dir: &std::path::Path,
    ) -> Result<Vec<std::path::PathBuf>, (std::path::PathBuf, std::io::Error)> {
        use switchcraft_core::output::OutputFile;
        std::fs::create_dir_all(dir).map_err(|e| (dir.to_path_buf(), e))?;
        let mut open = Vec::new();
        for (name, text) in self.files() {
            let path = dir.join(name);
            let written = OutputFile::create(&path).and_then(|mut f| {
                std::io::Write::write_all(&mut f, text.as_bytes())?;
                Ok(f)
            });
            // On an error, the files already open are dropped: their temporaries go.
            open.push((written.map_err(|e| (path.clone(), e))?, path));
        }
        let mut paths = Vec::new();
        for (f, path) in open {
            f.commit().map_err(|e| (path.clone(), e))?;
            paths.push(path);
        }
        Ok(paths)
    }
}

/// What a block's generator hands to [`package`].
pub struct Source<'a> {
    pub block: &'a str,
    pub instance: &'a str,
    /// The command line that regenerates these files, for the header.
    pub command: &'a str,
    /// The config as TOML (embedded in the header, digested for the config hash).
    pub config_toml: &'a str,
    pub schema: &'a PortSchema,
    /// rust-hdl's Verilog of the core (module `top` with ports `clock`, `reset` and the schema's
    /// names, each at least as wide as in the schema).
    pub core_verilog: &'a str,
    /// The register map: the C header, and the access rules of the AXI4-Lite bridge.
    pub regmap: &'a RegMap,
    /// The target the memories are built for.
    pub tech: crate::tech::Tech,
    /// Cycles `rst` must be held (memories that clear themselves during reset need more than
    /// one).
    pub reset_cycles: u32,
    /// Header lines on semantics the declared latencies do not say (arbitration, paths).
    pub notes: &'a [&'a str],
    /// The block's lint waivers beyond the one every package needs (DECLFILENAME).
    pub waivers: &'a [Waiver],
}

/// A Verilator lint waiver of a block's generated Verilog, with the reason it is right.
pub struct Waiver {
    pub rule: &'static str,
    /// Signal-name patterns (`-match "*'<pattern>'*"`); empty waives the rule for the file.
    pub signals: &'static [&'static str],
    pub reason: &'static str,
}

/// The waiver every package carries: one file holds the wrapper and every core module.
const DECLFILENAME: Waiver = Waiver {
    rule: "DECLFILENAME",
    signals: &[],
    reason: "one file holds all modules of an instance (the wrapper <instance>_top and the \
             prefixed core modules), so it is named after the instance, not after one module.",
};

/// The waiver every package carries: the AXI4-Lite top takes byte addresses of word registers.
const AXIL_ADDRESS_LSBS: Waiver = Waiver {
    rule: "UNUSEDSIGNAL",
    signals: &["s_axil_awaddr", "s_axil_araddr"],
    reason: "<instance>_axil_top takes AXI4-Lite byte addresses; every register is a 32-bit \
             word, so address bits 1:0 are not decoded.",
};

pub fn package(src: &Source) -> Package {
    let prefix = format!("{}__", src.instance);
    let core = rename_modules(
        &direct_clocks(&tidy_widths(src.core_verilog)),
        &prefix,
        &format!("{prefix}core"),
    );
    let core = once_per_module(&core);
    let bridge = rename_modules(
        &direct_clocks(&tidy_widths(&crate::axil::bridge_verilog(src.regmap))),
        &format!("{prefix}axil_"),
        &format!("{prefix}axil_bridge"),
    );
    let core_widths = module_port_widths(src.core_verilog, "top");
    // The port schema is the only list of ports: the rust-hdl core has exactly its ports (the
    // wrapper panics on a schema port the core lacks; this catches the converse).
    for (name, _) in &core_widths {
        assert!(
            name == "clock" || name == "reset" || src.schema.ports.iter().any(|p| p.name == *name),
            "the {} core has port {name}, which its port schema lacks",
            src.block
        );
    }
    let digest = fnv1a64(src.config_toml.as_bytes());
    let mut v = String::new();
    v += &format!("// Generated by switchcraft: {}\n", src.command);
    v += "// Do not edit. Regenerate with the command above (or `make rtl`).\n";
    v += &format!(
        "// Block {}, instance {}, top module {}_top, config digest fnv1a64:{digest:016x}\n",
        src.block, src.instance, src.instance
    );
    v += &format!("// Memories built for target {}.\n", src.tech);
    v += &format!(
        "// Hold rst for at least {} cycle{}.\n",
        src.reset_cycles,
        if src.reset_cycles == 1 {
            ""
        } else {
            "s (the memories clear themselves)"
        }
    );
    for line in wrap(&latency_note(src.schema), 94) {
        v += &format!("// {line}\n");
    }
    for n in src.notes {
        v += &format!("// {n}\n");
    }
    v += "// Config:\n";
    for line in src.config_toml.lines() {
        v += &format!("//   {line}\n");
    }
    v += "\n";
    v += &wrapper(src, &prefix, &core_widths);
    v += "\n";
    v += &axil_wrapper(src, &prefix);
    v += "\n// ---- Core (rust-hdl export, modules prefixed with the instance name) ----\n";
    v += core.trim_start();
    if !v.ends_with('\n') {
        v.push('\n');
    }
    v += "\n// ---- AXI4-Lite bridge (rust-hdl export) ----\n";
    v += bridge.trim_start();
    if !v.ends_with('\n') {
        v.push('\n');
    }
    let manifest = serde_json::json!({
        "block": src.block,
        "instance": src.instance,
        "top": format!("{}_top", src.instance),
        "clock": "clk",
        "reset": "rst",
        "reset_kind": "synchronous, active high",
        "reset_cycles": src.reset_cycles,
        "config_digest": format!("fnv1a64:{digest:016x}"),
        "target": src.tech.name(),
        "ports": src.schema.ports,
        "axil_top": format!("{}_axil_top", src.instance),
        "axil_ports": axil::schema(src.schema).ports,
    });
    Package {
        instance: src.instance.to_string(),
        verilog: v,
        manifest: serde_json::to_string_pretty(&manifest).expect("json") + "\n",
        c_header: src.regmap.c_header(src.instance, src.command, src.schema),
        gtkw_model: gtkw(
            src,
            src.block,
            "a model VCD (`switchcraft simulate/cosim --vcd W.vcd`)",
        ),
        gtkw_rtl: gtkw(
            src,
            "TOP",
            "a Verilator trace (`W.rtl.vcd` next to the model's W.vcd)",
        ),
        vlt: vlt(src),
        fusesoc: fusesoc_core(src),
        reset_cycles: src.reset_cycles,
    }
}

/// "Latency ...": the declared pipeline latency of every output bus, for the Verilog header.
fn latency_note(schema: &PortSchema) -> String {
    let buses: Vec<String> = schema
        .output_buses()
        .iter()
        .filter_map(|(b, l)| l.map(|l| format!("{b} {l}")))
        .collect();
    format!(
        "Latency in edges after the edge that sampled the events (csr_rdata: csr_addr): {}.",
        buses.join(", ")
    )
}

/// The lint waiver file. Its patterns name the Verilog file without a directory, so the
/// waivers hold wherever `switchcraft generate --out` put the files.
fn vlt(src: &Source) -> String {
    let i = src.instance;
    let mut s = String::from("`verilator_config\n");
    s += &format!("// Generated by switchcraft: {}\n", src.command);
    s += &format!("// Lint waivers of {i}.v. Use: verilator --lint-only -Wall {i}.vlt {i}.v\n");
    for w in [&DECLFILENAME, &AXIL_ADDRESS_LSBS]
        .into_iter()
        .chain(src.waivers)
    {
        s += "//\n";
        let reason = format!("{}: {}", w.rule, w.reason.replace("<instance>", i));
        for line in wrap(&reason, 94) {
            s += &format!("// {line}\n");
        }
        let file = format!("lint_off -rule {} -file \"*{i}.v\"", w.rule);
        if w.signals.is_empty() {
            s += &format!("{file}\n");
        }
        for sig in w.signals {
            s += &format!("{file} -match \"*'{sig}'*\"\n");
        }
    }
    s
}

/// The FuseSoC core file (CAPI2): the Verilog and its waivers, a target per top and a
/// Verilator lint target per top. Its VLNV is `switchcraft:<block>:<instance>:<version>`.
fn fusesoc_core(src: &Source) -> String {
    let i = src.instance;
    let mut s = format!("CAPI=2:\n# Generated by switchcraft: {}\n", src.command);
    s += "# Do not edit; regenerate instead. Use: fusesoc --cores-root DIR run --target lint \\\n";
    s += &format!("#   switchcraft:{}:{i}\n", src.block);
    s += &format!(
        "name: switchcraft:{}:{i}:{}\n",
        src.block,
        env!("CARGO_PKG_VERSION")
    );
    s += &format!(
        "description: switchcraft {} block, instance {i} (memories for {})\n\n",
        src.block, src.tech
    );
    s += &format!(
        "filesets:\n  rtl:\n    files:\n      - {i}.v\n    file_type: verilogSource\n\
         \x20 lint_waivers:\n    files:\n      - {i}.vlt\n    file_type: vlt\n\n"
    );
    // A core that depends on this one gets its `default` target's filesets whatever its own
    // target, so the waivers go with them when Verilator is the tool (a dependent's lint).
    let filesets = "[rtl, \"tool_verilator ? (lint_waivers)\"]";
    s += "targets:\n";
    s += &format!("  # {i}_top: the block with its bare CSR bus (csr_*).\n");
    s += &format!("  default:\n    filesets: {filesets}\n    toplevel: {i}_top\n");
    s += &format!("  # {i}_axil_top: the block with an AXI4-Lite slave (s_axil_*).\n");
    s += &format!("  axil:\n    filesets: {filesets}\n    toplevel: {i}_axil_top\n");
    for (target, top) in [
        ("lint", format!("{i}_top")),
        ("lint_axil", format!("{i}_axil_top")),
    ] {
        s += &format!(
            "  {target}:\n    default_tool: verilator\n    filesets: [rtl, lint_waivers]\n\
             \x20   toplevel: {top}\n    tools:\n      verilator:\n        mode: lint-only\n\
             \x20       verilator_options: [-Wall]\n"
        );
    }
    s
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("one line");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

fn gtkw(src: &Source, scope: &str, what: &str) -> String {
    let generated = format!("Generated by switchcraft: {}", src.command);
    let view = format!("GTKWave view of the {} ports in {what}.", src.instance);
    let usage = format!(
        "Open with: gtkwave W.vcd {}.gtkw (or .rtl.gtkw)",
        src.instance
    );
    switchcraft_core::vcd::gtkw_save_file(src.schema, scope, &[&generated, &view, &usage])
}

/// The ANSI wrapper: schema ports in, zero-extended into the core; core outputs sliced out.
fn wrapper(src: &Source, prefix: &str, core_widths: &[(String, u32)]) -> String {
    let width_of = |name: &str| {
        core_widths
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, w)| *w)
            .unwrap_or_else(|| panic!("core has no port {name}"))
    };
    let mut s = format!("module {}_top (\n", src.instance);
    s += "    input  wire         clk,\n    input  wire         rst";
    for p in &src.schema.ports {
        let dir = match p.dir {
            Dir::In => "input ",
            Dir::Out => "output",
        };
        s += &format!(",\n    {dir} wire {} {}", range(p.width), p.name);
    }
    s += "\n);\n";
    // Core outputs wider than the schema port: the extra bits are zero by construction
    // (e.g. priorities padded to 3 bits); they are declared here and left unread.
    let mut wide_outputs = Vec::new();
    for p in src.schema.outputs() {
        let cw = width_of(&p.name);
        if cw > p.width {
            wide_outputs.push((p, cw));
        }
    }
    if !wide_outputs.is_empty() {
        s +=
            "    // Core outputs padded beyond the port width; the padding bits are always zero.\n";
        s += "    /* verilator lint_off UNUSEDSIGNAL */\n";
        for (p, cw) in &wide_outputs {
            s += &format!("    wire [{}:0] core_{};\n", cw - 1, p.name);
        }
        s += "    /* verilator lint_on UNUSEDSIGNAL */\n";
        for (p, _) in &wide_outputs {
            let slice = if p.width == 1 {
                "[0]".to_string()
            } else {
                format!("[{}:0]", p.width - 1)
            };
            s += &format!("    assign {} = core_{}{slice};\n", p.name, p.name);
        }
    }
    s += &format!("\n    {prefix}core core (\n        .clock(clk),\n        .reset(rst)");
    for p in &src.schema.ports {
        let cw = width_of(&p.name);
        let conn = match p.dir {
            Dir::In if cw > p.width => format!("{{{}'d0, {}}}", cw - p.width, p.name),
            Dir::Out if cw > p.width => format!("core_{}", p.name),
            _ => {
                assert_eq!(cw, p.width, "port {} narrower in the core", p.name);
                p.name.clone()
            }
        };
        s += &format!(",\n        .{}({conn})", p.name);
    }
    s += "\n    );\nendmodule\n";
    s
}

/// `[w-1:0]` padded to a column, or blanks for one bit.
fn range(w: u32) -> String {
    if w == 1 {
        "       ".to_string()
    } else {
        format!("{:<7}", format!("[{}:0]", w - 1))
    }
}

/// The AXI4-Lite top `<instance>_axil_top`: the block's wrapper with its CSR bus driven by the
/// bridge (crates/rtl/src/axil.rs), ports as `switchcraft_core::axil::schema`.
fn axil_wrapper(src: &Source, prefix: &str) -> String {
    let i = src.instance;
    let schema = axil::schema(src.schema);
    let mut s = format!(
        "// {i} with an AXI4-Lite slave in place of its CSR bus (byte addresses; SLVERR for an\n\
         // unmapped word, a write to a read-only word or a write strobing too few byte lanes).\n\
         module {i}_axil_top (\n    input  wire         clk,\n    input  wire         rst"
    );
    for p in &schema.ports {
        let dir = match p.dir {
            Dir::In => "input ",
            Dir::Out => "output",
        };
        s += &format!(",\n    {dir} wire {} {}", range(p.width), p.name);
    }
    s += "\n);\n";
    for name in axil::CSR_PORTS {
        let p = src
            .schema
            .ports
            .iter()
            .find(|p| p.name == name)
            .expect("CSR port");
        s += &format!("    wire {} {name};\n", range(p.width));
    }
    s += &format!("\n    {i}_top block (\n        .clk(clk),\n        .rst(rst)");
    for p in &src.schema.ports {
        s += &format!(",\n        .{n}({n})", n = p.name);
    }
    s += "\n    );\n\n";
    let a = axil::ADDR_BITS - 1;
    s += &format!(
        "    {prefix}axil_bridge axil (\n        .clock(clk),\n        .reset(rst),\n\
         \x20       .awvalid(s_axil_awvalid),\n        .awword(s_axil_awaddr[{a}:2]),\n\
         \x20       .wvalid(s_axil_wvalid),\n        .wdata(s_axil_wdata),\n\
         \x20       .wstrb(s_axil_wstrb),\n        .bready(s_axil_bready),\n\
         \x20       .arvalid(s_axil_arvalid),\n        .arword(s_axil_araddr[{a}:2]),\n\
         \x20       .rready(s_axil_rready),\n        .awready(s_axil_awready),\n\
         \x20       .wready(s_axil_wready),\n        .bvalid(s_axil_bvalid),\n\
         \x20       .bresp(s_axil_bresp),\n        .arready(s_axil_arready),\n\
         \x20       .rvalid(s_axil_rvalid),\n        .rdata(s_axil_rdata),\n\
         \x20       .rresp(s_axil_rresp),\n        .csr_we(csr_we),\n\
         \x20       .csr_addr(csr_addr),\n        .csr_wdata(csr_wdata),\n\
         \x20       .csr_rdata(csr_rdata)\n    );\nendmodule\n"
    );
    s
}

/// `verilog` with each module defined once: rust-hdl writes a wrapper leaf's library module
/// (`asic` memories) once per instance of the leaf.
fn once_per_module(verilog: &str) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = String::with_capacity(verilog.len());
    let mut skipping = false;
    for line in verilog.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("module ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            skipping = !seen.insert(name);
        }
        if !skipping {
            out += line;
            out.push('\n');
        }
        if skipping && line.trim_start().starts_with("endmodule") {
            skipping = false;
        }
    }
    out
}

/// One rust-hdl module's Verilog (`generate_verilog` of a sub-block, not a core) as a module
/// named `name` with its submodules prefixed `<name>__`, widths tidied and clocks direct as in
/// a package: for measuring a sub-block on its own (`switchcraft synth --loops`).
pub fn standalone_module(verilog: &str, name: &str) -> String {
    once_per_module(&rename_modules(
        &direct_clocks(&tidy_widths(verilog)),
        &format!("{name}__"),
        name,
    ))
}

/// Renames `top` to `top_name` and `top$x` to `<prefix>x`.
fn rename_modules(verilog: &str, prefix: &str, top: &str) -> String {
    let mut out = String::with_capacity(verilog.len() + 4096);
    for line in verilog.lines() {
        let line = line.trim_end();
        let line = if let Some(rest) = line.strip_prefix("module top(") {
            format!("module {top}({rest}")
        } else {
            replace_module_refs(line, prefix)
        };
        out += &line;
        out.push('\n');
    }
    out
}

/// Replaces every `top$` that starts an identifier (rust-hdl's submodule names) with `prefix`;
/// a `top$` inside a longer name, as in a signal `p_stop$q`, is left alone.
fn replace_module_refs(line: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(line.len() + 32);
    let mut rest = line;
    while let Some(at) = rest.find("top$") {
        let starts_identifier = !out
            .chars()
            .chain(rest[..at].chars())
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        out += &rest[..at];
        out += if starts_identifier { prefix } else { "top$" };
        rest = &rest[at + 4..];
    }
    out + rest
}

/// `(name, width)` of the ports of module `module` in rust-hdl's non-ANSI declarations.
fn module_port_widths(verilog: &str, module: &str) -> Vec<(String, u32)> {
    let start = format!("module {module}(");
    verilog
        .lines()
        .skip_while(|l| !l.trim().starts_with(&start))
        .skip(1)
        .take_while(|l| !l.trim().starts_with("endmodule"))
        .filter(|l| {
            let t = l.trim();
            t.starts_with("input") || t.starts_with("output")
        })
        .filter_map(declared_width)
        .collect()
}

/// Rewrites three rust-hdl idioms whose operand widths differ (Verilator `-Wall` WIDTH warnings)
/// into equal-valued, width-exact forms, module by module:
/// * `((x) & N'hff..f)` (a `bit_cast` to N bits) of a signal x of width w:
///   `{{(N-w)}'d0, x}` if w < N, `x` if w = N, `x[N-1:0]` if w > N;
/// * `lhs = N'hV;` (an untyped literal) becomes `lhs = W'hV;` with W the width of `lhs`;
/// * `x = (x & ~(1 << (i)) | ((e) << (i)));` (a `replace_bit` at a constant index) becomes
///   `x[i] = e;`.
///
/// Every co-simulation runs on the rewritten text, so the equivalence tests cover this pass.
pub fn tidy_widths(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    let mut widths: Vec<(String, u32)> = Vec::new();
    for line in verilog.lines() {
        if line.starts_with("module ") {
            widths.clear();
        }
        if let Some((name, w)) = declared_width(line) {
            widths.push((name, w));
        }
        let width = |n: &str| widths.iter().rev().find(|(k, _)| k == n).map(|(_, w)| *w);
        let mut l = rewrite_casts(line, &width);
        l = rewrite_literal_assign(&l, &width);
        l = rewrite_replace_bit(&l);
        out += &l;
        out.push('\n');
    }
    out
}

/// Connects every submodule's clock straight to the module's `clock` input.
///
/// rust-hdl copies the clock into one `reg <inst>$clock` per submodule inside the module's
/// combinational `always @(*)` block. Functionally a wire, but it puts the clock in the
/// sensitivity of the whole block, which Verilator then evaluates on both clock edges. Only
/// copies of exactly `clock` are rewired; anything else is left as it is.
pub fn direct_clocks(verilog: &str) -> String {
    let copies: std::collections::HashSet<String> = verilog
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_suffix("$clock = clock;")
                .map(|i| format!("{i}$clock"))
        })
        .collect();
    let mut out = String::with_capacity(verilog.len());
    for line in verilog.lines() {
        let t = line.trim();
        let is_copy = t
            .strip_suffix(" = clock;")
            .is_some_and(|lhs| copies.contains(lhs));
        let is_decl = t
            .strip_prefix("reg  ")
            .and_then(|r| r.strip_suffix(';'))
            .is_some_and(|n| copies.contains(n));
        if is_copy || is_decl {
            continue;
        }
        let mut l = line.to_string();
        let port = t.strip_suffix(',').unwrap_or(t);
        if let Some(inner) = port
            .strip_prefix(".clock(")
            .and_then(|r| r.strip_suffix(')'))
        {
            if copies.contains(inner) {
                l = line.replace(&format!(".clock({inner})"), ".clock(clock)");
            }
        }
        out += &l;
        out.push('\n');
    }
    out
}

/// `(name, width)` of a port, reg, wire or localparam declared on this line.
fn declared_width(line: &str) -> Option<(String, u32)> {
    let t = line.trim();
    if let Some(rest) = t.strip_prefix("localparam") {
        let (name, value) = rest.split_once('=')?;
        let (w, _) = value.trim().split_once('\'')?;
        return Some((name.trim().to_string(), w.parse().ok()?));
    }
    let mut rest = t;
    for kw in ["input", "output", "wire", "reg"] {
        if let Some(r) = rest.strip_prefix(kw) {
            rest = r.trim_start();
            for kw2 in ["wire", "reg"] {
                if let Some(r2) = rest.strip_prefix(kw2) {
                    rest = r2.trim_start();
                }
            }
            let rest = rest.strip_suffix(';')?;
            let (w, name) = match rest.strip_prefix('[') {
                Some(r) => {
                    let (msb, name) = r.split_once(":0]")?;
                    (msb.trim().parse::<u32>().ok()? + 1, name.trim())
                }
                None => (1, rest.trim()),
            };
            if name.is_empty() || name.contains([' ', '[', ',']) {
                return None;
            }
            return Some((name.to_string(), w));
        }
    }
    None
}

/// Whether `hex` (digits of a Verilog `'h` literal) is 2^n - 1, at any width.
fn all_ones_hex(hex: &str, n: u32) -> bool {
    let Some(lead) = hex.chars().next() else {
        return false;
    };
    let lead_bits = match lead {
        '1' => 1,
        '3' => 2,
        '7' => 3,
        'f' => 4,
        _ => return false,
    };
    hex[1..].chars().all(|c| c == 'f') && lead_bits + 4 * (hex.len() as u32 - 1) == n
}

fn rewrite_casts(line: &str, width: &dyn Fn(&str) -> Option<u32>) -> String {
    let mut s = line.to_string();
    let mut from = 0;
    while let Some(k) = s[from..].find("((") {
        let start = from + k;
        let inner = &s[start + 2..];
        let Some(close) = inner.find(") & ") else {
            break;
        };
        let name = &inner[..close];
        let after = &inner[close + 4..];
        let lit_len = after.find(')').unwrap_or(0);
        let lit = &after[..lit_len];
        let simple = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        let cast_to = lit
            .split_once("'h")
            .filter(|(_, hex)| {
                hex.chars()
                    .all(|c| c == 'f' || c == '1' || c == '3' || c == '7')
            })
            .and_then(|(n, hex)| {
                let n: u32 = n.parse().ok()?;
                all_ones_hex(hex, n).then_some(n)
            });
        match (simple, cast_to, width(name)) {
            (true, Some(n), Some(w)) => {
                let repl = if w < n {
                    format!("{{{}'d0, {name}}}", n - w)
                } else if w == n {
                    name.to_string()
                } else {
                    format!("{name}[{}:0]", n - 1)
                };
                let end = start + 2 + close + 4 + lit_len + 1;
                s.replace_range(start..end, &repl);
                from = start + repl.len();
            }
            _ => from = start + 1,
        }
    }
    s
}

fn rewrite_literal_assign(line: &str, width: &dyn Fn(&str) -> Option<u32>) -> String {
    let t = line.trim_start();
    let indent = &line[..line.len() - t.len()];
    let Some((lhs, rhs)) = t.split_once(" = ") else {
        return line.to_string();
    };
    let Some(lit) = rhs.strip_suffix(';') else {
        return line.to_string();
    };
    let Some((n, hex)) = lit.split_once("'h") else {
        return line.to_string();
    };
    let (Ok(n), Ok(v), Some(w)) = (n.parse::<u32>(), u128::from_str_radix(hex, 16), width(lhs))
    else {
        return line.to_string();
    };
    if n == w || (w < 128 && v >> w != 0) {
        return line.to_string();
    }
    format!("{indent}{lhs} = {w}'h{v:x};")
}

fn rewrite_replace_bit(line: &str) -> String {
    let t = line.trim_start();
    let indent = &line[..line.len() - t.len()];
    let Some((lhs, rhs)) = t.split_once(" = ") else {
        return line.to_string();
    };
    let head = format!("({lhs} & ~(1 << (");
    let Some(rest) = rhs.strip_prefix(&head) else {
        return line.to_string();
    };
    let Some((index, rest)) = rest.split_once(")) | ((") else {
        return line.to_string();
    };
    let tail = format!(") << ({index})));");
    // The index is a constant: a loop variable's value (`5`) or a literal (`32'h5`).
    let constant = if index.chars().all(|c| c.is_ascii_digit()) {
        index.parse::<u64>().ok()
    } else {
        index
            .split_once("'h")
            .filter(|(w, _)| w.chars().all(|c| c.is_ascii_digit()))
            .and_then(|(_, hex)| u64::from_str_radix(hex, 16).ok())
    };
    match (rest.strip_suffix(&tail), constant) {
        (Some(value), Some(bit)) => format!("{indent}{lhs}[{bit}] = {value};"),
        _ => line.to_string(),
    }
}

/// Runs a block's Verilog generation on its own thread with a 256 MiB stack and returns the
/// result. A core is built in one arm of a large `match` over its const-generic shapes, and an
/// unoptimised build reserves stack for every arm's core: more than a 2 MiB test thread holds
/// (PFC's overflowed once its occupancy grew). The stack is virtual memory, committed only as
/// it is used.
pub fn on_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .expect("a thread for Verilog generation")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_clocks_rewires_only_plain_clock_copies() {
        let v = "    reg  a$clock;\n    reg  b$clock;\n    x a(\n        .clock(a$clock),\n        .d(b)\n    );\n\
                 always @(*) begin\n        a$clock = clock;\n        b$clock = other;\n    end\n";
        assert!(!direct_clocks(v).contains("a$clock"));
        let r = direct_clocks(v);
        assert_eq!(
            r,
            "    reg  b$clock;\n    x a(\n        .clock(clock),\n        .d(b)\n    );\n\
             always @(*) begin\n        b$clock = other;\n    end\n"
        );
    }

    #[test]
    fn tidy_widths_makes_casts_and_literals_width_exact() {
        let v = "module m(a);\n    input wire  [1:0] a;\n    reg  [4:0] k;\n    reg  [3:0] d;\n    reg  [31:0] w;\n                 k = ((a) & 5'h1f) << 32'h3;\n    k = 32'h0;\n    d = (d & ~(1 << (2)) | ((|k[(2 * 32'h8)+:(8)]) << (2)));\n    d = (d & ~(1 << (32'h3)) | ((a[0]) << (32'h3)));\n                 k = ((w) & 5'h1f);\n    w = ((w) & 32'hffffffff);\nendmodule\n";
        let t = tidy_widths(v);
        assert!(t.contains("k = {3'd0, a} << 32'h3;"), "{t}");
        assert!(t.contains("k = 5'h0;"), "{t}");
        assert!(t.contains("d[2] = |k[(2 * 32'h8)+:(8)];"), "{t}");
        assert!(t.contains("d[3] = a[0];"), "{t}");
        assert!(all_ones_hex("ffffffffffffffffffffffffffffffffff", 136));
        assert!(all_ones_hex("7ff", 11));
        assert!(!all_ones_hex("7fe", 11));
        assert!(!all_ones_hex("ff", 9));
        assert!(t.contains("k = w[4:0];"), "{t}");
        assert!(t.contains("w = w;"), "{t}");
    }

    #[test]
    fn renames_every_module_with_the_prefix() {
        let v = "module top(a);\n  top$x x(.d(a));\nendmodule\nmodule top$x(d);\nendmodule\n";
        let r = rename_modules(v, "pfc_tiny__", "pfc_tiny__core");
        assert_eq!(
            r,
            "module pfc_tiny__core(a);\n  pfc_tiny__x x(.d(a));\nendmodule\nmodule pfc_tiny__x(d);\nendmodule\n"
        );
        // A signal whose name merely contains `top$` keeps it.
        let v = "module top(a);\n  top$p_stop p_stop(.d(p_stop$d), .q(p_stop$q));\nendmodule\n";
        let r = rename_modules(v, "tcd_tiny__", "tcd_tiny__core");
        assert!(
            r.contains("  tcd_tiny__p_stop p_stop(.d(p_stop$d), .q(p_stop$q));"),
            "{r}"
        );
    }

    #[test]
    fn reads_core_port_widths() {
        let v = "module top(a,b,c);\n    input wire  a;\n    input wire  [2:0] b;\n    output reg  [31:0] c;\nendmodule\n";
        assert_eq!(
            module_port_widths(v, "top"),
            vec![("a".into(), 1), ("b".into(), 3), ("c".into(), 32)]
        );
    }
}
