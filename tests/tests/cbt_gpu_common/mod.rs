//! Shared pieces of the GPU CBT tests.
#![allow(dead_code)]

use engine::cbt::validate::{validate, MeshReport};
use engine::cbt::Pool;

/// The validator must pass on the read-back pool; returns its report.
#[track_caller]
pub fn conforming(pool: &Pool, what: &str) -> MeshReport {
    match validate(pool) {
        Ok(r) => r,
        Err(e) => panic!("{what}: mesh invalid:\n  {}", e.join("\n  ")),
    }
}

/// Two pools are the same bit for bit; on failure, says where.
#[track_caller]
pub fn assert_same_pool(gpu: &Pool, cpu: &Pool, what: &str) {
    if gpu == cpu {
        return;
    }
    let mut diffs = Vec::new();
    for (i, (a, b)) in gpu.entries.iter().zip(&cpu.entries).enumerate() {
        if a != b && diffs.len() < 5 {
            diffs.push(format!("entry {i}:\n    gpu {a:?}\n    cpu {b:?}"));
        }
    }
    let arrays = [
        ("free bits", gpu.free_bits != cpu.free_bits),
        ("free tree", gpu.free_tree != cpu.free_tree),
        ("request bits", gpu.request_bits != cpu.request_bits),
        ("request tree", gpu.request_tree != cpu.request_tree),
        ("draw bits", gpu.draw_bits != cpu.draw_bits),
        ("draw tree", gpu.draw_tree != cpu.draw_tree),
        ("draw list", gpu.draw_list != cpu.draw_list),
    ];
    for (name, differs) in arrays {
        if differs {
            diffs.push(format!("{name} differ"));
        }
    }
    if gpu.control != cpu.control {
        diffs.push(format!(
            "control:\n    gpu {:?}\n    cpu {:?}",
            gpu.control, cpu.control
        ));
    }
    panic!(
        "{what}: GPU pool differs from the model:\n  {}",
        diffs.join("\n  ")
    );
}
