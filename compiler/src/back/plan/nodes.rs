//! The `nodes` array of a plan in the line layout, formatted on two threads for large graphs.
//!
//! Nodes are most of a plan's bytes (110 MB for a 100k-node graph). From [`PARALLEL_FROM`]
//! nodes on, they are formatted in chunks of [`CHUNK`]: the calling thread formats the even
//! chunks straight into the output, a helper thread the odd ones into buffers it hands over in
//! order (at most two ahead), so the bytes are those of one thread formatting them all.

use super::{Ctx, NodeOut};
use crate::ir::NodeId;
use agc_runtime::plan::layout::{PlanFormatter, element_separator};
use serde::Serialize;
use std::io::{self, Write};

/// Graphs with fewer nodes are formatted on the calling thread alone.
pub(super) const PARALLEL_FROM: usize = 2048;

/// Nodes a chunk: about 256 KB of plan.
const CHUNK: usize = 256;

/// Writes the elements of `nodes` for `order` (what [`TopLevel::array_entry`] asks for).
///
/// [`TopLevel::array_entry`]: agc_runtime::plan::layout::TopLevel::array_entry
pub(super) fn write<W: Write>(c: Ctx<'_>, order: &[NodeId], out: &mut W) -> io::Result<()> {
    if order.len() < PARALLEL_FROM {
        return write_chunk(c, 0, order, out);
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
        let helper = std::thread::Builder::new()
            .name("agc-plan".into())
            .spawn_scoped(s, move || {
                for (k, chunk) in order.chunks(CHUNK).enumerate().skip(1).step_by(2) {
                    let mut buf = Vec::with_capacity(CHUNK * 1024);
                    let done = write_chunk(c, k * CHUNK, chunk, &mut buf).map(|()| buf);
                    if tx.send(done).is_err() {
                        return;
                    }
                }
            });
        if helper.is_err() {
            return write_chunk(c, 0, order, out);
        }
        for (k, chunk) in order.chunks(CHUNK).enumerate() {
            if k % 2 == 0 {
                write_chunk(c, k * CHUNK, chunk, out)?;
            } else {
                // The helper stops early only by panicking, which the scope passes on.
                let formatted = rx
                    .recv()
                    .map_err(|_| io::Error::other("plan helper stopped"))?;
                out.write_all(&formatted?)?;
            }
        }
        Ok(())
    })
}

/// Writes the nodes `ids`, the first of which is element `first` of the array.
fn write_chunk<W: Write>(c: Ctx<'_>, first: usize, ids: &[NodeId], out: &mut W) -> io::Result<()> {
    for (i, &id) in ids.iter().enumerate() {
        out.write_all(element_separator(first + i))?;
        let f = PlanFormatter::element_of("nodes");
        NodeOut { c, id }.serialize(&mut serde_json::Serializer::with_formatter(&mut *out, f))?;
    }
    Ok(())
}
