//! Helpers shared by several test binaries.
#![allow(dead_code)]

pub mod conv_check;
