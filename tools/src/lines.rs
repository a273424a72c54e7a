//! The line format of our small text files (bookmarks, scripts, camera paths, the bench's
//! views).

use std::path::Path;

/// The lines of our small text formats (bookmarks, scripts, camera paths): `#` starts a
/// comment, blank lines are skipped. Yields the place (`file:line`, for errors), the raw
/// line and its whitespace-separated fields.
pub fn data_lines<'t>(
    text: &'t str,
    file: &'t Path,
) -> impl Iterator<Item = (String, &'t str, Vec<&'t str>)> + 't {
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let fields: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        (!fields.is_empty()).then(|| (format!("{}:{}", file.display(), i + 1), raw, fields))
    })
}
