//! SCAFFOLDING: replaced by the real plug-in (being written in a worktree).
use crate::game::*;
#[derive(Debug)]
pub struct Stub;
impl Game for Stub {
    type Position = u64;
    fn name(&self) -> String {
        unimplemented!()
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        unimplemented!()
    }
    fn sections(&self) -> Vec<Section> {
        unimplemented!()
    }
    fn decode(&self, _: Index) -> Option<u64> {
        unimplemented!()
    }
    fn encode(&self, _: &u64) -> Index {
        unimplemented!()
    }
    fn canonical(&self, _: &u64) -> u64 {
        unimplemented!()
    }
    fn terminal(&self, _: &u64) -> Option<Value> {
        unimplemented!()
    }
    fn successors(&self, _: &u64, _: &mut Vec<Successor>) {
        unimplemented!()
    }
    fn predecessors(&self, _: &u64, _: &mut Vec<Index>) {
        unimplemented!()
    }
}
impl GameText for Stub {
    fn title(&self) -> String {
        unimplemented!()
    }
    fn parse_position(&self, _: &str) -> Result<u64, PositionError> {
        unimplemented!()
    }
    fn position_text(&self, _: &u64) -> String {
        unimplemented!()
    }
    fn present(&self, _: &u64, _: &crate::probe::Probed) -> Presented {
        unimplemented!()
    }
    fn distance_unit(&self) -> DistanceUnit {
        unimplemented!()
    }
}
pub type Kbnk = Stub;
impl Stub {
    pub fn new() -> Stub {
        Stub
    }
}
