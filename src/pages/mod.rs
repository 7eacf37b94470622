pub mod gallery;
pub mod home;
pub mod results;
