//! Artifacts leaving the store as files. [`file_server`]: a loopback HTTP server that serves one
//! artifact per capability URL to the tools that were handed one (000 §4, §8).
//! [`artifact_files`]: a file name safe to create, and the verified copy "Open with the system
//! application" hands to the platform's opener.
#![deny(missing_docs)]

pub mod artifact_files;
pub mod file_server;
