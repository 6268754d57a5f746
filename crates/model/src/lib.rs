//! Golden cycle models: the reference every RTL export is compared against.
//!
//! One module per block, named by the block's stem. Each module holds the block's `Config`
//! (serde; validated), its presets, its port schema, its register map and the model itself.

/// Declares a port bundle whose fields are listed in schema order.
macro_rules! port_bundle {
    ($(#[$m:meta])* $name:ident { $($field:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name { $(pub $field: u64),* }

        impl $name {
            /// Field names in schema order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];
        }

        impl switchcraft_core::PortValues for $name {
            fn to_values(&self, values: &mut [u64]) {
                let mut k = 0;
                $( values[k] = self.$field; k += 1; )*
                let _ = k;
            }

            fn from_values(values: &[u64]) -> Self {
                let mut it = values.iter().copied();
                $name { $($field: it.next().unwrap_or(0)),* }
            }
        }
    };
}

pub mod bfc;
pub mod capfc;
pub mod config;
pub mod feedback;
pub mod pfc;
pub mod pfcmac;
pub mod qcn;
pub mod rcm;
pub mod tcd;
pub mod units;
