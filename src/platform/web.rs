//! Small browser helpers (downloads, location, time) shared by the pages.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

/// The current location hash, including the leading `#` (empty when there is none).
pub fn hash() -> String {
    window().location().hash().unwrap_or_default()
}

/// The page address's query before the `#`, including the leading `?` (empty when there is none): where
/// recruitment platforms (MTurk, SONA) put their parameters.
pub fn search() -> String {
    window().location().search().unwrap_or_default()
}

pub fn set_hash(h: &str) {
    let _ = window().location().set_hash(h);
}

/// `origin + pathname` of the page, to build share links.
pub fn base_url() -> String {
    let loc = window().location();
    format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default())
}

/// Now as ISO 8601 text.
pub fn now_iso() -> String {
    js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default()
}

/// Leave the page by submitting a form: a POST of `fields` to `action` (what MTurk's externalSubmit
/// takes; its answer replaces this page).
pub fn post_form(action: &str, fields: &[(&str, &str)]) {
    let Some(doc) = window().document() else { return };
    let Some(form) = doc.create_element("form").ok().and_then(|e| e.dyn_into::<web_sys::HtmlFormElement>().ok()) else {
        return;
    };
    form.set_method("POST");
    form.set_action(action);
    for (name, value) in fields {
        if let Ok(input) = doc.create_element("input") {
            let _ = input.set_attribute("type", "hidden");
            let _ = input.set_attribute("name", name);
            let _ = input.set_attribute("value", value);
            let _ = form.append_child(&input);
        }
    }
    if let Some(body) = doc.body() {
        let _ = body.append_child(&form);
        let _ = form.submit();
    }
}

/// Offer `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    save_blob(name, mime, &parts)
}

/// Offer `bytes` as a file download named `name` (checkpoints).
pub fn download_bytes(name: &str, bytes: &[u8]) -> Result<(), String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    save_blob(name, "application/octet-stream", &parts)
}

/// The SVG document `svg` (`width` × `height` px) drawn `scale` times larger on a canvas and offered as
/// a PNG download named `name`: text and lines are drawn at the raster's own resolution, so the fonts
/// are in the picture.
pub async fn download_svg_as_png(name: &str, svg: &str, width: u32, height: u32, scale: u32) -> Result<(), String> {
    let fail = |what: &str| format!("the PNG could not be made ({what})");
    let img = web_sys::HtmlImageElement::new().map_err(|_| fail("no image element"))?;
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        img.set_onload(Some(&resolve));
        img.set_onerror(Some(&reject));
    });
    let src = format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(svg)));
    img.set_src(&src);
    JsFuture::from(loaded).await.map_err(|_| fail("the browser could not read the figure"))?;
    let doc = window().document().ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement =
        doc.create_element("canvas").map_err(|_| fail("no canvas"))?.dyn_into().map_err(|_| fail("no canvas"))?;
    let (w, h) = (width * scale, height * scale);
    canvas.set_width(w);
    canvas.set_height(h);
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into().ok()).ok_or_else(|| fail("no 2D context"))?;
    ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, w as f64, h as f64)
        .map_err(|_| fail("drawing"))?;
    let url = canvas.to_data_url_with_type("image/png").map_err(|_| fail("encoding"))?;
    click_download(&url, name)
}

/// Follow `href` as a download named `name` (a link made and clicked).
fn click_download(href: &str, name: &str) -> Result<(), String> {
    let doc = window().document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement =
        doc.create_element("a").map_err(|_| "no link element")?.dyn_into().map_err(|_| "no link element")?;
    a.set_href(href);
    a.set_download(name);
    a.click();
    Ok(())
}

fn save_blob(name: &str, mime: &str, parts: &js_sys::Array) -> Result<(), String> {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_blob_sequence_and_options(parts, &opts)
        .map_err(|_| "the browser could not make the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser could not make the file".to_string())?;
    let clicked = click_download(&url, name);
    let _ = web_sys::Url::revoke_object_url(&url);
    clicked
}

/// The bytes of a file served beside the app (`data/minerva/…`, a study's consent text).
pub async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let resp = JsFuture::from(window().fetch_with_str(path))
        .await
        .map_err(|_| format!("Could not load {path} (network error)."))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| format!("Could not load {path}."))?;
    if !resp.ok() {
        return Err(format!("Could not load {path} (HTTP {}).", resp.status()));
    }
    let buf = JsFuture::from(resp.array_buffer().map_err(|_| format!("Could not read {path}."))?)
        .await
        .map_err(|_| format!("Could not read {path}."))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// POST `body` (JSON) to `url` with only the usual headers and return the answer's text (DataPipe's
/// condition API).
pub async fn post_json_text(url: &str, body: &str) -> Result<String, String> {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    let headers = web_sys::Headers::new().map_err(|_| "no headers".to_string())?;
    let _ = headers.set("content-type", "application/json");
    let _ = headers.set("accept", "*/*");
    init.set_headers(&headers);
    init.set_body(&wasm_bindgen::JsValue::from_str(body));
    let req = web_sys::Request::new_with_str_and_init(url, &init).map_err(|_| format!("{url} is not an address"))?;
    let resp = JsFuture::from(window().fetch_with_request(&req)).await.map_err(|_| "network error".to_string())?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "no answer".to_string())?;
    let text =
        JsFuture::from(resp.text().map_err(|_| "no answer".to_string())?).await.map_err(|_| "no answer".to_string())?;
    Ok(text.as_string().unwrap_or_default())
}
