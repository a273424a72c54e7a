//! `planetfall view` under Xvfb + lavapipe: a scripted flight with validation on (the viewer
//! exits non-zero on any validation message or leaked GPU allocation), and bad input.

mod common;
use common::*;

#[test]
fn scripted_flight_is_clean_under_validation() {
    let x = Xvfb::start();
    let dir = scratch("flight");
    let shot = dir.join("shot.png");
    let script = write(
        &dir,
        "flight.txt",
        "frames 10\nresize 200 150\nframes 5\nbookmark everest\ndebug levels\nfly 1 0.2 -0.5 10\nhelp\nframes 5\nprint\nbookmark atlantis\nframes 2\n",
    );
    let mut c = x.command(&[
        "view",
        "--validation",
        "--no-ground",
        "--width",
        "256",
        "--height",
        "160",
    ]);
    c.arg("--script")
        .arg(&script)
        .arg("--screenshot")
        .arg(&shot)
        .current_dir(root());
    let out = ok(c);
    assert!(
        out.contains("swapchain sizes 256x160 200x150"),
        "resize must recreate the swapchain:\n{out}"
    );
    assert!(out.contains("bookmark everest:"), "{out}");
    assert!(out.contains("debug view: levels"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("planetfall render --scene ") && l.contains("--lat 27.88")),
        "print gives the render line:\n{out}"
    );
    assert!(
        out.contains("unknown bookmark \"atlantis\""),
        "a bad jump is reported, the flight goes on:\n{out}"
    );
    assert!(out.contains("no GPU memory leaked"), "{out}");
    let frames: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("view: ")?.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    assert!(
        frames >= 32,
        "the script asks for 32 frames; presented {frames}:\n{out}"
    );
    // The screenshot is the last presented frame at the final size, HUD included.
    let dec = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let reader = dec.read_info().expect("png");
    assert_eq!((reader.info().width, reader.info().height), (200, 150));
}

#[test]
fn bad_input_says_what_is_wrong() {
    let x = Xvfb::start();
    let dir = scratch("badinput");
    let short = write(&dir, "short.txt", "frames 3\n");

    // Unknown bookmark at start: a clear error naming the known ones.
    let o = x
        .command(&["view", "--bookmark", "atlantis"])
        .current_dir(root())
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success()
            && err.contains("unknown bookmark \"atlantis\"")
            && err.contains("everest"),
        "{err}"
    );

    // Unreadable camera path / script / bookmark file: the file is named.
    let o = x
        .command(&["view", "--play", "/nonexistent/path.txt"])
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("/nonexistent/path.txt"),
        "{err}"
    );
    let bad = write(&dir, "bad.txt", "0 1 2 3 4 5 60\n1 oops\n");
    let o = x.command(&["view", "--play"]).arg(&bad).output().unwrap();
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("bad.txt:2"), "{err}");
    let marks = write(&dir, "marks.txt", "a 0 0 0 0 0 60\nb 0 0\n");
    let o = x
        .command(&["view", "--bookmark", "a", "--bookmarks"])
        .arg(&marks)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("marks.txt:2"), "{err}");

    // puffin port in use: said plainly, the viewer runs anyway.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let mut c = x.command(&[
        "view",
        "--no-ground",
        "--width",
        "96",
        "--height",
        "64",
        "--puffin",
        &addr,
    ]);
    c.arg("--script").arg(&short).env("RUST_LOG", "info");
    let o = c.output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(err.contains("first frame presented in"), "{err}");

    // --etopo reaches the renderer, not only the ground probe (off here): a missing file
    // stops the viewer, naming the file and the package.
    let mut c = x.command(&["view", "--no-ground", "--width", "96", "--height", "64"]);
    c.args(["--etopo", "/nonexistent/etopo5.cdf", "--script"])
        .arg(&short);
    let o = c.output().unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success()
            && err.contains("/nonexistent/etopo5.cdf")
            && err.contains("ferret-datasets"),
        "{err}"
    );

    // Missing librenderdoc: the viewer runs without captures; `capture` fails clearly.
    let missing = dir.join("nowhere/librenderdoc.so");
    let mut c = x.command(&[
        "view",
        "--no-ground",
        "--renderdoc",
        "--width",
        "96",
        "--height",
        "64",
    ]);
    c.arg("--script")
        .arg(&short)
        .env("PLANETFALL_RENDERDOC_LIB", &missing);
    let o = c.output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.contains("apt-get install renderdoc"), "{err}");
    let o = x
        .command(&["capture", "--dir"])
        .arg(&dir)
        .env("PLANETFALL_RENDERDOC_LIB", &missing)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("apt-get install renderdoc"),
        "{err}"
    );

    // No display at all: points to the headless path.
    let o = x.command(&["view"]).env_remove("DISPLAY").output().unwrap();
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("planetfall render"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Flying forward and down into Everest's slopes: the CPU ground query keeps the eye above
/// the ground the tiles hold (checked against `planetfall height`, the same query).
#[test]
fn flight_stays_above_the_ground() {
    let x = Xvfb::start();
    let dir = scratch("ground");
    let data = dir.join("data");
    let script = write(&dir, "down.txt", "speed 30\nfly 1 0 -1 90\nprint\n");
    let mut c = x.command(&[
        "view",
        "--bookmark",
        "everest",
        "--agl",
        "3",
        "--pitch",
        "-20",
        "--width",
        "96",
        "--height",
        "64",
        "--data",
    ]);
    c.arg(&data)
        .arg("--script")
        .arg(&script)
        .current_dir(root());
    let out = ok(c);
    let line = out
        .lines()
        .find(|l| l.starts_with("planetfall render"))
        .expect("print line");
    let arg = |k: &str| -> String {
        line.split_whitespace()
            .skip_while(|w| *w != k)
            .nth(1)
            .expect(k)
            .to_string()
    };
    let (lat, lon, alt): (String, String, f64) =
        (arg("--lat"), arg("--lon"), arg("--alt").parse().unwrap());
    let mut h = std::process::Command::new(BIN);
    // The water mask of the default data directory, not one built into this test's own.
    let water = engine::earth::water::mask_path(None, &engine::store::data_dir(None));
    h.args(["height", "--lat", &lat, "--lon", &lon, "--data"])
        .arg(&data)
        .arg("--water")
        .arg(water);
    let hout = ok(h);
    let ground: f64 = hout
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|v| v.parse().ok())
        .expect("height prints metres");
    assert!(ground > 4000.0, "Everest's slopes: {hout}");
    assert!(
        alt >= ground + 1.0,
        "eye {alt} m vs ground {ground} m at {lat},{lon}:\n{out}"
    );
    assert!(lat != "27.880000", "the camera moved");
    assert!(
        alt <= ground + 40.0,
        "the eye should have come down close to the ground: {alt} vs {ground}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A PNG's size and RGBA8 pixels.
fn read_png(path: &std::path::Path) -> ([u32; 2], Vec<u8>) {
    let dec = png::Decoder::new(std::fs::File::open(path).expect("screenshot written"));
    let mut reader = dec.read_info().expect("png");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    ([info.width, info.height], buf)
}

/// The first frame of a start is a preview (`view --preview`, default 2): drawn at half the
/// window's size on each axis and scaled up, without the HUD, and already the planet that the
/// full-size frames after it show.
#[test]
fn the_first_frame_is_a_half_size_preview_of_the_planet() {
    let x = Xvfb::start();
    let dir = scratch("preview");
    let (first, later) = (dir.join("first.png"), dir.join("later.png"));
    let script = write(
        &dir,
        "preview.txt",
        &format!(
            "hud\nscreenshot {}\nframes 4\nscreenshot {}\nframes 2\n",
            first.display(),
            later.display()
        ),
    );
    // A waiting render first, so that the data directory holds the climate field: this test is
    // about the preview, and on a cold directory the first frames are shaded with the latitude
    // belt instead (`look::the_first_frame_does_not_wait_for_the_climate` covers that).
    let mut warm = std::process::Command::new(BIN);
    warm.args(["render", "--width", "16", "--height", "10", "--out"])
        .arg(dir.join("warm.png"))
        .current_dir(root());
    ok(warm);
    let mut c = x.command(&[
        "view",
        "--validation",
        "--no-ground",
        "--width",
        "256",
        "--height",
        "160",
    ]);
    c.arg("--script").arg(&script).current_dir(root());
    let out = ok(c);
    assert!(out.contains("no GPU memory leaked"), "{out}");
    let (size0, px0) = read_png(&first);
    let (size1, px1) = read_png(&later);
    assert_eq!(
        size0,
        [128, 80],
        "the preview is half the window on each axis"
    );
    assert_eq!(size1, [256, 160], "later frames are full size");
    // The later frame boxed down 2×2 to the preview's size: the same view, finer.
    let [w, h] = size0;
    let at = |px: &[u8], width: u32, x: u32, y: u32, c: usize| {
        px[((y * width + x) * 4) as usize + c] as f64
    };
    let (mut diff, mut lum0, mut lum1) = (0.0, 0.0, 0.0);
    for y in 0..h {
        for x in 0..w {
            for c in 0..3 {
                let down = (0..4)
                    .map(|k| at(&px1, 2 * w, 2 * x + k % 2, 2 * y + k / 2, c))
                    .sum::<f64>()
                    / 4.0;
                let p = at(&px0, w, x, y, c);
                diff += (p - down).abs();
                lum0 += p;
                lum1 += down;
            }
        }
    }
    let n = (w * h * 3) as f64;
    let (diff, lum0, lum1) = (diff / n, lum0 / n, lum1 / n);
    println!("preview mean {lum0:.1}, later frame boxed down mean {lum1:.1}, mean |difference| {diff:.1} (of 255)");
    assert!(
        lum0 > 20.0,
        "the preview shows the lit planet, not space: mean {lum0:.1}"
    );
    // The preview draws the first frame's mesh (the CBT has refined at most four levels), so
    // its outlines are coarse: against the climate's contrasts (green plains, snow, arid
    // soil) that differs from the refined frame by up to 30 % of the mean (measured 37.7 of
    // 132.5 over the Ganges and Tibet); another view, space or a blank frame is far more.
    assert!(
        diff < 0.35 * lum1,
        "the preview is the later frame's view: mean |difference| {diff:.1} against mean {lum1:.1}"
    );
}
