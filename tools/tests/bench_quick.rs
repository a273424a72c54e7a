//! `planetfall bench --quick` on lavapipe under validation: the quick views of
//! `captures/views.txt` on the analytic planet meet the accuracy bars (see-through and
//! covers-sky ≤ 0.5 %, no NaN — the command itself exits non-zero otherwise), and the run
//! writes its JSON, Markdown and contact sheet with every section filled; `--compare` of a
//! report with itself gives ratio 1; bad input is reported by name. The report names the
//! commit the binary was built from (this checkout's HEAD) and the validation layer's verdict.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_planetfall");

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `git rev-parse HEAD` of this checkout, `-dirty` when a tracked file differs from it — what
/// tools/build.rs embeds, since cargo rebuilt the binary for this test run.
fn checkout_commit() -> String {
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .current_dir(repo())
            .args(args)
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}");
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let hash = git(&["rev-parse", "HEAD"]);
    let status = git(&[
        "--no-optional-locks",
        "status",
        "--porcelain",
        "--untracked-files=no",
    ]);
    if status.is_empty() {
        hash
    } else {
        hash + "-dirty"
    }
}

#[test]
fn quick_bench_meets_the_accuracy_bars_and_writes_every_output() {
    let out = std::env::temp_dir().join(format!("pf-bench-quick-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(BIN)
        .current_dir(repo())
        .args(["bench", "--quick", "--per-node", "--validation", "--out"])
        .arg(&out)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    println!("{stdout}");
    assert!(
        run.status.success(),
        "planetfall bench --quick failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("accuracy bars met"), "{stdout}");

    let find = |ext: &str| {
        std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == ext))
            .unwrap_or_else(|| panic!("no .{ext} in {}", out.display()))
    };
    let json = find("json");
    assert!(
        json.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("bench-"),
        "{}",
        json.display()
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let commit = r["commit"].as_str().unwrap();
    let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
    assert!(
        hash.len() == 40 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "commit {commit:?}"
    );
    assert_eq!(
        commit,
        checkout_commit(),
        "the binary's commit is the checkout's"
    );
    assert_eq!(r["validation"]["enabled"], true, "run with --validation");
    assert_eq!(r["validation"]["messages"], 0);
    // The mode `--publish auto` ran on this device, and the node that took the big leaves.
    let publish = r["publish"].as_str().unwrap();
    let big = match publish {
        "hw" => "raster.hardware",
        "compute" => "raster.compute.big",
        other => panic!("publish {other:?}: hw or compute"),
    };
    let views = r["views"].as_array().unwrap();
    assert!(views.len() >= 3, "{} quick views", views.len());
    for v in views {
        let name = v["name"].as_str().unwrap();
        let num = |path: &[&str]| {
            path.iter()
                .fold(v, |x, k| &x[*k])
                .as_f64()
                .unwrap_or_else(|| panic!("{name}: {path:?} missing"))
        };
        assert!(
            num(&["score", "see_through"]) <= 0.005 && num(&["score", "covers_sky"]) <= 0.005,
            "{name}"
        );
        assert!(
            num(&["score", "pixels"]) == 96.0 * 64.0,
            "{name}: the whole 96×64 frame is scored"
        );
        // Every quick view shows the planet, so its score measured terrain: an orbit view whose
        // windows missed the planet once reported a see-through of nothing.
        assert!(
            num(&["score", "terrain"]) > 0.0 && v["score"]["measured_nothing"] == false,
            "{name}: the score measured terrain ({})",
            num(&["score", "terrain"])
        );
        assert!(
            num(&["timed", "gpu_median_ms"]) > 0.0
                && num(&["setup_ms"]) > 0.0
                && num(&["first_frame_ms"]) > 0.0,
            "{name}"
        );
        // The timed loop: 3 frames kept after 2 dropped, 3 in flight; p95 ≥ median. The
        // spans on one queue do not overlap, so the host's wall time over the 3 frames covers
        // their sum, and so the median span.
        let t = &v["timed"];
        assert_eq!(
            (&t["frames"], &t["warmup"], &t["frames_in_flight"]),
            (&3.into(), &2.into(), &3.into()),
            "{name}"
        );
        assert!(num(&["timed", "gpu_p95_ms"]) >= num(&["timed", "gpu_median_ms"]));
        assert!(
            3.0 * num(&["timed", "wall_per_frame_ms"]) >= num(&["timed", "gpu_median_ms"]),
            "{name}: frames cannot finish faster than the GPU runs them"
        );
        // The SM clock: lavapipe has no nvidia-smi; where it runs, it gives a clock or says
        // no sample fell inside the loop. Flags are exactly the rule's.
        if t["clock_exposed"] == false {
            assert!(t["clock"].is_null(), "{name}");
        }
        let spread = num(&["timed", "gpu_p95_ms"]) > 1.5 * num(&["timed", "gpu_median_ms"]);
        let flags: Vec<&str> = t["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        assert_eq!(
            flags.iter().any(|f| f.starts_with("spread")),
            spread,
            "{name}: {flags:?}"
        );
        // The per-node pass (--per-node): the nodes' span and sum, as many frames.
        assert_eq!(t["per_node"]["frames"], 3, "{name}");
        assert!(
            num(&["timed", "per_node", "span_median_ms"]) > 0.0
                && num(&["timed", "per_node", "sum_median_ms"]) > 0.0,
            "{name}"
        );
        assert!(
            num(&["settle", "frames_to_settled"]) >= 1.0
                && v["settle"]["settled"].as_bool() == Some(true),
            "{name}: settles"
        );
        assert!(
            num(&["mesh", "leaves"]) > 0.0 && num(&["tiles", "resident"]) >= 6.0,
            "{name}"
        );
        let nodes = v["nodes"].as_array().unwrap();
        let node = |n: &str| {
            nodes
                .iter()
                .find(|x| x["name"] == n)
                .unwrap_or_else(|| panic!("{name}: no node {n}"))
        };
        assert!(node(big)["median_ms"].as_f64().unwrap() > 0.0);
        assert!(
            publish != "hw" || node(big)["floor_ms"].as_f64().unwrap() > 0.0,
            "{name}: raster floor"
        );
        assert!(
            nodes.iter().all(|x| x["name"] != "raster.hardware") || publish == "hw",
            "{name}: no hardware raster in compute mode"
        );
        assert!(
            node("shade.terrain")["floor_bytes"].as_u64() == Some(20 * 96 * 64),
            "{name}: resolve floor bytes"
        );
        assert!(
            nodes
                .iter()
                .all(|x| !x["name"].as_str().unwrap().starts_with("readback.")),
            "{name}: timed frames read nothing back"
        );
    }
    let l = &r["limits"];
    let gbps = |k: &str| l[k].as_f64().unwrap();
    assert!(gbps("transfer_gbps") > 0.0 && gbps("compute_gbps") > 0.0 && gbps("upload_gbps") > 0.0);
    assert_eq!(
        gbps("device_gbps"),
        gbps("transfer_gbps").max(gbps("compute_gbps")),
        "the floors take the faster copy"
    );
    // The quick run copies 32 MiB; lavapipe's storage range (2^27) holds it whole.
    assert_eq!(l["compute_copy_bytes"], 32 << 20);
    let flights = r["flights"].as_array().unwrap();
    let names: Vec<&str> = flights
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "descent",
            "lateral-100",
            "lateral-300",
            "lateral-1000",
            "turn"
        ],
        "the descent, one lateral flight per speed, the turn"
    );
    for f in flights {
        assert!(
            f["frames"].as_u64().unwrap() >= 5 && f["max_px"].as_f64().unwrap().is_finite(),
            "{f}"
        );
        assert!(
            f["per_frame"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["compared"].as_u64().unwrap() > 0),
            "{}: every frame compares pixels",
            f["name"]
        );
    }
    assert!(r["teleport"]["frames_to_settled"].as_u64().unwrap() >= 1);
    readiness_is_sane(&r);

    let md = std::fs::read_to_string(find("md")).unwrap();
    assert!(
        md.contains(&format!(
            "- commit: {commit}\n- validation: on, 0 messages\n- publish: {publish}\n"
        )),
        "Markdown lacks the commit, validation and publish lines"
    );
    for section in [
        "## Limits",
        "## Targets",
        "## GPU ms per node",
        "## Floors",
        "## Accuracy",
        "## Pop and settling",
        "## Readiness",
    ] {
        assert!(md.contains(section), "Markdown lacks {section}");
    }
    let png = std::fs::read(find("png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");

    // --compare of a report with itself: every ratio is 1.
    let cmp = Command::new(BIN)
        .args(["bench", "--compare"])
        .arg(&json)
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&cmp.stdout);
    assert!(
        cmp.status.success() && text.contains(big) && text.contains("1.000"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The flights' readiness: frames that never wait on the analytic planet's worker pool, a
/// cold store that had to supply tiles, teleports that end in a still image, cold slower than
/// warm.
fn readiness_is_sane(r: &serde_json::Value) {
    let rd = &r["readiness"];
    let num = |v: &serde_json::Value, what: &str| {
        v.as_f64()
            .unwrap_or_else(|| panic!("readiness: {what} missing in {rd}"))
    };
    assert_eq!(rd["cold_store"], true, "flights start on a cold store");
    assert_eq!(
        rd["frames_waited"], 0,
        "non-waiting frames never wait: {rd}"
    );
    let per = rd["flights"].as_array().unwrap();
    let names: Vec<&str> = per.iter().map(|f| f["name"].as_str().unwrap()).collect();
    for want in [
        "descent",
        "lateral-100",
        "lateral-300",
        "lateral-1000",
        "turn",
    ] {
        assert!(names.contains(&want), "readiness lacks {want}: {names:?}");
    }
    let mut missing = 0.0;
    for f in per {
        let frames = num(&f["frames"], "frames");
        assert!(frames >= 6.0, "{f}");
        assert_eq!(f["frames_waited"], 0, "{f}");
        let m = num(&f["missing_level_frames"], "missing_level_frames");
        assert!(m <= frames, "{f}");
        missing += m;
        let (n, clock) = (
            num(&f["finest_wait_frames"], "finest_wait_frames"),
            num(&f["finest_wait_clock_s"], "finest_wait_clock_s"),
        );
        assert!((clock - n / 60.0).abs() < 1e-9, "60 Hz clock: {f}");
        assert!(num(&f["finest_wait_wall_s"], "wall") >= 0.0, "{f}");
        let h = &f["host_ms"];
        let (med, p95, max) = (
            num(&h["median"], "h"),
            num(&h["p95"], "h"),
            num(&h["max"], "h"),
        );
        assert!(
            med > 0.0 && med <= p95 && p95 <= max && max.is_finite(),
            "{f}"
        );
    }
    assert_eq!(
        num(&rd["missing_level_frames"], "total"),
        missing,
        "total = sum"
    );
    for f in r["flights"].as_array().unwrap() {
        for p in f["per_frame"].as_array().unwrap() {
            assert_eq!(p["waited"], false, "{p}");
            let (host, wall) = (num(&p["host_ms"], "host_ms"), num(&p["wall_ms"], "wall_ms"));
            assert!(
                host > 0.0 && host <= wall,
                "the CPU side is part of the frame: {p}"
            );
        }
    }
    let (warm, cold) = (
        num(&rd["teleport_still_s"]["warm"], "warm"),
        num(&rd["teleport_still_s"]["cold"], "cold"),
    );
    assert!(warm > 0.0 && cold.is_finite(), "teleports: {rd}");
    // The still point is the frame the renderer reported itself settled (frames without
    // readback), confirmed by a readback pair after it.
    for t in ["teleport_warm", "teleport_cold"] {
        assert_eq!(rd[t]["still_confirmed"], true, "{t}: {rd}");
        assert_eq!(
            rd[t]["frames_to_still"], rd[t]["frames_to_settled"],
            "{t}: {rd}"
        );
    }
    let (warm_settled, cold_settled) = (
        num(&rd["teleport_warm"]["seconds_to_settled"], "warm settled"),
        num(&rd["teleport_cold"]["seconds_to_settled"], "cold settled"),
    );
    assert!(
        cold_settled > warm_settled,
        "a cold store derives the teleport's tiles, a warm one has them: settled cold {cold_settled} s, warm {warm_settled} s (still {cold} / {warm} s)"
    );
    assert_eq!(rd["teleport_cold"]["settled"], true, "{rd}");
    let derived = num(&rd["supply_tiles_per_s"]["derived"], "supply derived");
    assert!(
        derived > 0.0 && derived.is_finite(),
        "the cold store supplied tiles: {rd}"
    );
    assert!(
        rd["supply_tiles_per_s"]["stored"].is_null()
            || num(&rd["supply_tiles_per_s"]["stored"], "stored") == 0.0
    );
    let h = &rd["host_ms"];
    assert!(num(&h["median"], "median") > 0.0 && num(&h["max"], "max") >= num(&h["p95"], "p95"));
}

#[test]
fn bad_input_is_named() {
    let run = |args: &[&str]| {
        let o = Command::new(BIN)
            .current_dir(repo())
            .args(args)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?} should fail");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = run(&["bench", "--quick", "--views", "/nonexistent/views.txt"]);
    assert!(e.contains("/nonexistent/views.txt"), "{e}");
    let e = run(&["bench", "--quick", "--only", "atlantis"]);
    assert!(
        e.contains("atlantis") && e.contains("africa-orbit-p90"),
        "{e}"
    );
    let e = run(&["bench", "--quick", "--scene", "mars"]);
    assert!(e.contains("mars"), "{e}");
    let e = run(&[
        "bench",
        "--compare",
        "/nonexistent/a.json",
        "/nonexistent/b.json",
    ]);
    assert!(e.contains("/nonexistent/a.json"), "{e}");
}
