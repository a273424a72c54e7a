//! Embeds the commit the binary is built from as `PLANETFALL_BUILD_COMMIT`: the full hash of
//! `HEAD`, with `-dirty` when a tracked file differs from it, or `unknown` without git (a
//! source archive). Benchmark reports and `--version` print it, so a report names the code that
//! produced it even when the binary runs outside its checkout.
//!
//! The script reruns when HEAD moves (HEAD, the branch ref, packed refs, HEAD's reflog, the
//! index) or a tracked file changes, so the dirty mark follows edits. Paths come from git
//! itself: in a worktree HEAD and the index live in the worktree's git directory, refs in the
//! common one.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        // Status must not refresh the index: that would rewrite a file this script watches.
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

fn watch(path: &Path) {
    // A path that does not exist would make cargo rerun the script on every build.
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(hash) => {
            let mut git_files = vec!["HEAD".to_string(), "index".into(), "packed-refs".into()];
            git_files.push("logs/HEAD".into());
            if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
                git_files.push(head_ref);
            }
            for f in &git_files {
                if let Some(p) = git(&["rev-parse", "--git-path", f]) {
                    watch(Path::new(&p));
                }
            }
            if let (Some(top), Some(files)) = (
                git(&["rev-parse", "--show-toplevel"]),
                git(&["ls-files", "--full-name", ":/"]),
            ) {
                for f in files.lines() {
                    watch(&PathBuf::from(&top).join(f));
                }
            }
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=PLANETFALL_BUILD_COMMIT={commit}");
}
