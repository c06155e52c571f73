//! The large top-level arrays of a plan (`nodes`, `edges`, `links`) in the line layout,
//! formatted on two threads for large graphs.
//!
//! Nodes are most of a plan's bytes (110 MB for a 100k-node graph), edges and links the next
//! (about a sixth). From [`PARALLEL_FROM`] elements on, an array is formatted in chunks of
//! about [`CHUNK_BYTES`]: the calling thread formats the even chunks straight into the output,
//! a helper thread the odd ones into buffers it hands over in order (at most two ahead), so the
//! bytes are those of one thread formatting them all.

use agc_runtime::plan::layout::{PlanFormatter, element_separator};
use serde::Serialize;
use std::io::{self, Write};

/// Arrays with fewer elements are formatted on the calling thread alone.
pub(super) const PARALLEL_FROM: usize = 2048;

/// About how many bytes of plan a chunk holds: large enough that handing a chunk over costs
/// nothing beside formatting it, small enough that the two threads end together.
const CHUNK_BYTES: usize = 256 * 1024;

/// Elements a chunk of the array `key`, from the typical size of its elements.
pub(super) fn chunk_len(key: &str) -> usize {
    let typical = match key {
        "nodes" => 1024,
        _ => 160,
    };
    CHUNK_BYTES / typical
}

/// Writes the `len` elements of the top-level array `key`, element `i` being `element(i)`
/// (what [`TopLevel::array_entry`] asks for).
///
/// [`TopLevel::array_entry`]: agc_runtime::plan::layout::TopLevel::array_entry
pub(super) fn write<W, T, F>(key: &str, len: usize, element: F, out: &mut W) -> io::Result<()>
where
    W: Write,
    T: Serialize,
    F: Fn(usize) -> T + Sync,
{
    let element = &element;
    if len < PARALLEL_FROM {
        return write_chunk(key, 0..len, element, out);
    }
    let size = chunk_len(key);
    let chunks = || (0..len.div_ceil(size)).map(move |k| k * size..len.min((k + 1) * size));
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(2);
        let helper = std::thread::Builder::new()
            .name("agc-plan".into())
            .spawn_scoped(s, move || {
                for range in chunks().skip(1).step_by(2) {
                    let mut buf = Vec::with_capacity(CHUNK_BYTES + CHUNK_BYTES / 4);
                    let done = write_chunk(key, range, element, &mut buf).map(|()| buf);
                    if tx.send(done).is_err() {
                        return;
                    }
                }
            });
        if helper.is_err() {
            return write_chunk(key, 0..len, element, out);
        }
        for (k, range) in chunks().enumerate() {
            if k % 2 == 0 {
                write_chunk(key, range, element, out)?;
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

/// Writes the elements `range` of the array `key`.
fn write_chunk<W, T, F>(
    key: &str,
    range: std::ops::Range<usize>,
    element: &F,
    out: &mut W,
) -> io::Result<()>
where
    W: Write,
    T: Serialize,
    F: Fn(usize) -> T,
{
    for i in range {
        out.write_all(element_separator(i))?;
        let f = PlanFormatter::element_of(key);
        element(i).serialize(&mut serde_json::Serializer::with_formatter(&mut *out, f))?;
    }
    Ok(())
}
