//! The plug-in contract (work in progress).
