//! Lists read into a `Vec` of their exact length, for the plan's long lists (nodes, edges,
//! links) and its many short ones (a node's inputs and outputs): serde's own reading grows a
//! list by doubling, which on a 10k-node plan touched megabytes of memory nothing used.
//! Generic over the item, so the plan's types (`model`) and its hand-written readers (`de`)
//! both use it and it uses neither.

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};
use std::fmt;

/// Reads a short list (a node's inputs or outputs) into a `Vec` of its exact length when it
/// has one or two items, as most have. serde reads a list of unknown length into a `Vec` that
/// starts with room for four, and an input is 400 bytes: on a 10k-node plan, 12 MB allocated
/// that nothing used, and the pages under it touched when the allocator set them up.
pub(super) fn short_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<T>, A::Error> {
            let Some(first) = s.next_element()? else {
                return Ok(Vec::new());
            };
            let Some(second) = s.next_element()? else {
                return Ok(vec![first]);
            };
            let Some(third) = s.next_element()? else {
                return Ok(vec![first, second]);
            };
            let mut items = vec![first, second, third];
            while let Some(item) = s.next_element()? {
                items.push(item);
            }
            Ok(items)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

/// Reads a long list (a plan's nodes, edges or links) into a `Vec` of its exact length. serde reads a
/// list of unknown length by doubling: a 10k-node plan's nodes (832 bytes each) were copied
/// thirteen times into fresh memory, 27 MB of pages touched for an 8 MB list. Past its
/// first block, the list is read in blocks of `BLOCK` (256) items, then moved once into a list of
/// its length (the blocks' memory freed for what the run allocates next).
pub(super) fn long_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    /// Items per block.
    const BLOCK: usize = 256;
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<T>, A::Error> {
            // The first block grows as any list does (a small plan's stays small).
            let mut block = Vec::new();
            let mut full: Vec<Vec<T>> = Vec::new();
            while let Some(item) = s.next_element()? {
                if block.len() == BLOCK {
                    full.push(std::mem::replace(&mut block, Vec::with_capacity(BLOCK)));
                }
                block.push(item);
            }
            if full.is_empty() {
                return Ok(block);
            }
            let mut items = Vec::with_capacity(full.len() * BLOCK + block.len());
            for b in full {
                items.extend(b);
            }
            items.extend(block);
            Ok(items)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::long_list;

    #[test]
    fn a_long_list_keeps_every_item_in_order_and_has_its_exact_length() {
        for n in [0usize, 1, 255, 256, 257, 511, 512, 513, 1000] {
            let text = serde_json::to_string(&(0..n).collect::<Vec<_>>()).unwrap();
            let mut d = serde_json::Deserializer::from_str(&text);
            let items: Vec<usize> = long_list(&mut d).unwrap();
            assert_eq!(items, (0..n).collect::<Vec<_>>());
            if n > 256 {
                assert_eq!(items.capacity(), n);
            }
        }
    }
}
