fn main() {
    let name = std::env::args().nth(1).unwrap();
    let cfg = switchcraft_model::pfc::PfcConfig::preset(&name).unwrap();
    let p = switchcraft_rtl::pfc::package(&cfg, &format!("pfc_{name}"), "example");
    p.write_to(std::path::Path::new("/tmp/pfcgen")).unwrap();
}
