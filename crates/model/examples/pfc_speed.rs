// scratch, untracked
use std::time::Instant;
use switchcraft_core::CycleModel;
use switchcraft_model::pfc::{Pfc, PfcConfig, PfcIn, PfcWorkload};
fn main() {
    let c = PfcConfig::preset("tiny").unwrap();
    let mut w = PfcWorkload::new(&c, 1);
    let n = 1_000_000;
    let typed: Vec<PfcIn> = (0..n).map(|_| w.next_input()).collect();
    let mut m = Pfc::new(&c).unwrap();
    let mut all = vec![];
    for _ in 0..60 {
        m.reset();
        let t = Instant::now();
        for i in &typed {
            std::hint::black_box(m.step(i));
        }
        all.push(n as f64 / t.elapsed().as_secs_f64());
    }
    all.sort_by(f64::total_cmp);
    println!("best {:.3e} median {:.3e}", all[59], all[30]);
}
