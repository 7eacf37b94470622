pub mod compare;
pub mod gallery;
pub mod home;
pub mod llm;
pub mod networks;
pub mod results;
pub mod study;
pub mod take;
