//! Every integration test of `retro`, in one test binary (as ripgrep does): one link step
//! instead of one per file, and fixtures shared by all (the KBNK table is solved and written
//! once per run, see [`common`]). Add a test file as a module here.

mod common;
mod process_group;

mod architecture;
mod browser;
mod browser_analysis;
mod browser_answers;
mod browser_defaults;
mod browser_tables;
mod chess_bareking;
mod chess_cli;
mod chess_dtz;
mod chess_facts;
mod chess_movegen;
mod cli;
mod cli_bad_input;
mod compressed;
mod compressed_cache;
mod compressed_set;
mod conformance;
mod distributed;
mod gomoku_cli;
mod gomoku_vs_mnk;
mod hostile_cli;
mod hostile_serve;
mod kbnk_facts;
mod kbnk_movegen;
mod lichess_api;
mod mnk_facts;
mod python;
mod serve_api;
mod serve_connections;
mod serve_defaults;
mod serve_files;
mod serve_stats;
mod table_format;
