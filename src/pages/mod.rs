pub mod gallery;
pub mod home;
pub mod llm;
pub mod results;
pub mod study;
pub mod take;
pub mod networks;
pub mod compare;
