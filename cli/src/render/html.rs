//! `jtrace report --html`: one self-contained page (no network access): the report's
//! tables, sortable by any column, the flame graph, and the slowest calls.
//!
//! The flame graph is inferno's interactive SVG in an `<iframe>`, so its own script runs
//! in a document of its own (zoom, search). The SVG is carried in
//! the page as base64, in a `data:` URL, or past Chromium's 2 MB limit for those (a
//! compiler's graph came out blank) as the frame's `srcdoc`, set by the page's script
//! (a `blob:` URL, tried first, stays blank in a page opened from a file); it opens
//! scrolled to its bottom, where the roots are, and tells the page how many frames it
//! drew (`data-flame` on `<body>`, for the browser test).

use super::fmt;
use crate::analysis::report::ReportDoc;

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Standard base64 (RFC 4648), for the SVG carried in the page.
fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut o = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= c.len() {
                o.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                o.push('=');
            }
        }
    }
    o
}

/// A cell: what it shows, and the number it sorts by (if any).
enum Cell {
    Num(u64, String),
    Text(String),
}

fn n(v: u64) -> Cell {
    Cell::Num(v, v.to_string())
}

fn t(v: u64) -> Cell {
    Cell::Num(v, fmt::ns(v))
}

fn table(o: &mut String, id: &str, title: &str, head: &[&str], rows: Vec<Vec<Cell>>) {
    o.push_str(&format!("<h2>{}</h2>\n", esc(title)));
    if rows.is_empty() {
        o.push_str("<p class=\"none\">none</p>\n");
        return;
    }
    o.push_str(&format!(
        "<table class=\"sortable\" id=\"{id}\"><thead><tr>"
    ));
    for h in head {
        o.push_str(&format!("<th>{}</th>", esc(h)));
    }
    o.push_str("</tr></thead><tbody>\n");
    for r in rows {
        o.push_str("<tr>");
        for c in r {
            match c {
                Cell::Num(v, s) => {
                    o.push_str(&format!("<td class=\"n\" data-v=\"{v}\">{}</td>", esc(&s)))
                }
                Cell::Text(s) => o.push_str(&format!("<td>{}</td>", esc(&s))),
            }
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table>\n");
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;font-size:13px}th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}
th{cursor:pointer;background:#f3f3f3;user-select:none}th:hover{background:#e4e4e4}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td{font-family:ui-monospace,monospace;max-width:44em;overflow-wrap:anywhere}
.none,.meta{color:#666}iframe{width:100%;height:620px;border:1px solid #ccc}";

/// The `height` of an SVG's root element.
fn svg_height(svg: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(svg.get(..svg.len().min(4096))?).ok()?;
    let root = &text[text.find("<svg")?..];
    let v = &root[root.find(" height=\"")? + 9..];
    v[..v.find('"')?].parse().ok()
}

/// Click a header to sort by it (numbers by their data-v value), again to reverse.
const SCRIPT: &str = "document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
      var asc=th.getAttribute('data-order')!=='asc';th.setAttribute('data-order',asc?'asc':'desc');
      function key(r){var c=r.cells[i];var v=c.getAttribute('data-v');return v===null?c.textContent:Number(v);}
      rows.sort(function(a,b){var x=key(a),y=key(b);var d=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));return asc?d:-d;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
// `report.html#selftest` (the browser test): sort the methods by calls, twice, and
// record on <body> whether both orders came out right, and whether every table fits
// the window's width (readable at 1400px: no column pushed off-screen).
if(location.hash==='#selftest'){
  var t=document.getElementById('methods');var ok=!!t;
  if(t){var th=t.tHead.rows[0].cells[1];
    function calls(){return Array.prototype.map.call(t.tBodies[0].rows,function(r){return Number(r.cells[1].getAttribute('data-v'));});}
    th.click();var a=calls();th.click();var d=calls();
    for(var i=1;i<a.length;i++){if(a[i-1]>a[i]||d[i-1]<d[i])ok=false;}}
  var wide=[];document.querySelectorAll('table').forEach(function(x){if(x.getBoundingClientRect().right>window.innerWidth)wide.push(x.id);});
  document.body.setAttribute('data-too-wide',wide.join(' '));
  document.body.setAttribute('data-selftest',ok&&!wide.length?'ok':'failed');
}";

pub fn page(d: &ReportDoc, flame_svg: &[u8]) -> String {
    let mut o = String::new();
    let tr = &d.trace;
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    o.push_str(&format!(
        "<title>jtrace report: {}</title>\n",
        esc(&tr.file)
    ));
    o.push_str(&format!("<style>{STYLE}</style></head><body>\n"));
    o.push_str(&format!("<h1>jtrace report: {}</h1>\n", esc(&tr.file)));
    o.push_str(&format!(
        "<p class=\"meta\">{} from {}, {} threads, {} calls{}{}</p>\n",
        fmt::ns(tr.duration_ns),
        esc(&fmt::date(tr.start_unix_ns)),
        tr.threads,
        tr.calls,
        if tr.complete {
            ""
        } else {
            ", cut short (read up to its end)"
        },
        if tr.open_frames > 0 {
            format!(", {} frames still open at the end", tr.open_frames)
        } else {
            String::new()
        }
    ));
    o.push_str("<h2>Flame graph (self time)</h2>\n");
    // As tall as the graph (inferno writes its height on the root element), at most 620px.
    let height = svg_height(flame_svg).map_or(620, |h| (h + 4).min(620));
    o.push_str(&flame_frame(
        flame_svg,
        &format!(" style=\"height:{height}px\""),
    ));
    let rows = d
        .methods
        .iter()
        .map(|m| {
            vec![
                // Readable at 1400px: `Class.method(int, String)`, not the descriptor.
                Cell::Text(m.method.clone()),
                n(m.calls),
                t(m.total_ns),
                t(m.self_ns),
                t(m.mean_ns),
                t(m.p99_ns),
                t(m.max_ns),
                n(m.open),
            ]
        })
        .collect();
    table(
        &mut o,
        "methods",
        "Methods",
        &[
            "method", "calls", "total", "self", "mean", "p99", "max", "open",
        ],
        rows,
    );
    let rows = d
        .slowest
        .iter()
        .map(|c| {
            vec![
                t(c.duration_ns),
                Cell::Num(c.start_ns, format!("+{}", fmt::ns(c.start_ns))),
                Cell::Text(c.thread.clone()),
                Cell::Text(c.method.clone()),
            ]
        })
        .collect();
    table(
        &mut o,
        "slowest",
        "Slowest calls",
        &["duration", "start", "thread", "method"],
        rows,
    );
    let rows = d
        .threads
        .iter()
        .map(|th| {
            vec![
                Cell::Text(th.name.clone()),
                Cell::Num(th.start_ns, format!("+{}", fmt::ns(th.start_ns))),
                t(th.lifetime_ns),
                n(th.calls),
                t(th.traced_ns),
            ]
        })
        .collect();
    table(
        &mut o,
        "threads",
        "Threads",
        &["thread", "start", "lifetime", "calls", "traced"],
        rows,
    );
    let rows = d
        .allocations
        .iter()
        .map(|a| {
            vec![
                Cell::Text(a.readable.clone()),
                n(a.count),
                Cell::Num(a.bytes, fmt::bytes(a.bytes)),
                Cell::Text(a.site.clone()),
            ]
        })
        .collect();
    table(
        &mut o,
        "allocations",
        "Allocations",
        &["class", "count", "bytes", "site"],
        rows,
    );
    let rows = d
        .monitors
        .iter()
        .map(|m| {
            vec![
                Cell::Text(m.readable.clone()),
                Cell::Text(m.site.clone()),
                n(m.contended),
                t(m.blocked_ns),
                t(m.max_blocked_ns),
                n(m.waits),
                t(m.waited_ns),
            ]
        })
        .collect();
    table(
        &mut o,
        "monitors",
        "Monitors",
        &[
            "class",
            "where",
            "contended",
            "blocked",
            "longest",
            "waits",
            "waited",
        ],
        rows,
    );
    let rows = d
        .exceptions
        .iter()
        .map(|e| {
            vec![
                Cell::Text(e.readable.clone()),
                n(e.thrown),
                n(e.caught),
                Cell::Text(e.thrown_in.clone()),
                Cell::Text(e.caught_in.clone()),
            ]
        })
        .collect();
    table(
        &mut o,
        "exceptions",
        "Exceptions",
        &["class", "thrown", "caught", "thrown in", "caught in"],
        rows,
    );
    let g = &d.gc;
    o.push_str(&format!(
        "<h2>GC</h2>\n<p id=\"gc\">{} collections, {} total pause, {} longest</p>\n",
        g.collections,
        fmt::ns(g.total_pause_ns),
        fmt::ns(g.max_pause_ns)
    ));
    o.push_str(&format!("<script>{SCRIPT}</script>\n</body></html>\n"));
    o
}

/// `jtrace flame -o x.html`: a page that is just the flame graph.
pub fn flame_page(title: &str, svg: &[u8]) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n\
         <style>html,body{{margin:0;height:100%}}iframe{{border:0;width:100%;height:100%}}</style>\n\
         </head><body>{}</body></html>\n",
        esc(title),
        flame_frame(svg, "")
    )
}

/// Added to the SVG shown in a page: once loaded, it scrolls to its bottom (the roots;
/// a deep graph is taller than its frame) and tells the page how many frames it drew.
const SVG_TAIL: &str = "<script type=\"text/ecmascript\"><![CDATA[
window.addEventListener('load',function(){
  window.scrollTo(0,document.documentElement.getBoundingClientRect().height);
  try{parent.postMessage({jtraceFlame:document.getElementsByTagName('title').length},'*');}catch(e){}
});
]]></script>
";

/// Longest `data:` URL Chromium opens (2 MB); a longer graph goes in the frame's `srcdoc`.
const DATA_URL_MAX: usize = 2_000_000;

/// What a `data:` URL of an SVG in base64 starts with.
const DATA_SVG: &str = "data:image/svg+xml;base64,";

/// `svg` with [`SVG_TAIL`] as its last element.
fn with_tail(svg: &[u8]) -> Vec<u8> {
    let mut shown = svg.to_vec();
    match svg.windows(6).rposition(|w| w == b"</svg>") {
        Some(end) => {
            shown.truncate(end);
            shown.extend_from_slice(SVG_TAIL.as_bytes());
            shown.extend_from_slice(&svg[end..]);
        }
        None => shown.extend_from_slice(SVG_TAIL.as_bytes()),
    }
    shown
}

/// The `<iframe id="flame">` showing `svg` ([`with_tail`]), with `attrs`: in a `data:`
/// URL (shown with scripts off too), or past [`DATA_URL_MAX`] as the frame's `srcdoc` (the
/// SVG inside an HTML document of the page's origin, scaled to the frame's width) the
/// script after it makes; and the script putting the frame count the graph reports on
/// `<body>` as `data-flame`.
fn flame_frame(svg: &[u8], attrs: &str) -> String {
    let b64 = base64(&with_tail(svg));
    let listen = "<script>window.addEventListener('message',function(e){if(e.data&&typeof \
                  e.data.jtraceFlame==='number')document.body.setAttribute('data-flame',\
                  String(e.data.jtraceFlame));});</script>\n";
    if DATA_SVG.len() + b64.len() <= DATA_URL_MAX {
        return format!(
            "{listen}<iframe id=\"flame\" title=\"flame graph\"{attrs} \
             src=\"{DATA_SVG}{b64}\"></iframe>\n"
        );
    }
    format!(
        "{listen}<iframe id=\"flame\" title=\"flame graph\"{attrs}></iframe>\n\
         <script>(function(){{var a=atob(\"{b64}\"),u=new Uint8Array(a.length);\n\
         for(var i=0;i<a.length;i++)u[i]=a.charCodeAt(i);\n\
         document.getElementById('flame').srcdoc='<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0}}svg{{display:block;width:100%}}</style></head><body>'+new TextDecoder().decode(u)+'</body></html>';\n\
         }})();</script>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    /// A graph is shown through a `data:` URL up to Chromium's 2 MB, as the frame's
    /// `srcdoc` past it; what is shown is the SVG with the script that scrolls it and
    /// reports its frames as its last element.
    #[test]
    fn a_large_graph_goes_in_srcdoc() {
        let svg = |n: usize| format!("<svg>{}</svg>", "<g><title>x</title></g>".repeat(n));
        let small = flame_frame(svg(10).as_bytes(), "");
        assert!(small.contains("src=\"data:image/svg+xml;base64,") && !small.contains("srcdoc"));
        let large = flame_frame(svg(100_000).as_bytes(), "");
        assert!(large.contains(".srcdoc=") && !large.contains("src=\"data:"));
        let shown = with_tail(svg(10).as_bytes());
        let tail = format!("{SVG_TAIL}</svg>");
        assert!(shown.starts_with(b"<svg><g>") && shown.ends_with(tail.as_bytes()));
        assert!(small.contains(&base64(&shown)));
    }

    #[test]
    fn escapes() {
        assert_eq!(
            esc("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
