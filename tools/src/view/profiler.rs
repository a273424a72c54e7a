//! puffin: `--puffin [ADDR]` serves profiles over TCP (puffin_http, to `puffin_viewer`).
//! The executor already opens a CPU scope per node and reports GPU times on a "GPU" thread;
//! the viewer makes each presented frame a puffin frame.

/// Where the server listens unless told otherwise: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8585";

/// `ADDR` as given: `HOST:PORT`, or a bare port (on 127.0.0.1). All interfaces only when the
/// user names them (`0.0.0.0:PORT`).
pub fn bind_addr(arg: &str) -> String {
    if arg.parse::<u16>().is_ok() {
        format!("127.0.0.1:{arg}")
    } else {
        arg.to_string()
    }
}

/// Start the server, or explain why not and carry on without it.
pub fn start(arg: &str) -> Option<puffin_http::Server> {
    let addr = bind_addr(arg);
    match puffin_http::Server::new(&addr) {
        Ok(s) => {
            puffin::set_scopes_on(true);
            println!("puffin: serving on {addr} (run `puffin_viewer --url {addr}`)");
            Some(s)
        }
        Err(e) => {
            eprintln!("puffin: cannot listen on {addr} ({e:#}); is the port in use? Pick another with --puffin HOST:PORT. Continuing without the profiler server.");
            None
        }
    }
}

/// Close the current puffin frame (call once per presented frame).
pub fn new_frame() {
    puffin::GlobalProfiler::lock().new_frame();
}

#[cfg(test)]
mod tests {
    #[test]
    fn bare_port_binds_loopback() {
        assert_eq!(super::bind_addr("9000"), "127.0.0.1:9000");
        assert_eq!(super::bind_addr("0.0.0.0:9000"), "0.0.0.0:9000");
    }
}
