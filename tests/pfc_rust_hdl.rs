//! Smoke check: rust-hdl's own simulator of the PFC core agrees with the golden model on a short
//! random run. (The gate for RTL correctness is the Verilator run of the exported Verilog; this
//! only catches gross breakage early and documents where rust-hdl's simulator stands.)

use switchcraft::BlockConfig;
use switchcraft_model::pfc::PfcConfig;

#[test]
fn pfc_rust_hdl_simulation_matches_model_on_a_short_run() {
    let cfg = BlockConfig::preset("pfc", "tiny").unwrap();
    let pc = cfg.get::<PfcConfig>().expect("a PFC config");
    let mut gen = cfg.workload(11);
    let rows: Vec<Vec<u64>> = (0..3000)
        .map(|_| {
            let mut v = vec![0; 11];
            gen(&mut v);
            v
        })
        .collect();
    let rtl = switchcraft_rtl::pfc::simulate_rust_hdl(pc, 2, &rows);
    let mut model = cfg.model();
    let mut out = vec![0; 13];
    for (cycle, (row, got)) in rows.iter().zip(&rtl).enumerate() {
        model.step_values(row, &mut out);
        assert_eq!(&out, got, "cycle {cycle}: model vs rust-hdl simulator");
    }
}
