pub mod network_view;
pub mod painter;
pub mod stage;
