//! The published Minerva snapshot as samples (in progress).
