pub use tgsi;
