#!/usr/bin/env python3
"""Check a JATOS 3.x study archive (.jzip) against what JATOS's "Import study" requires.

    python3 scripts/dev/check-jzip.py ARCHIVE.jzip [--strict]   (scripts/dev/jatos-pack.sh makes dist-jatos/wmlab.jzip)

Rules follow the JATOS source (github.com/JATOS/JATOS, read at v3.10.5 / HEAD, compared with v3.7.6 and v3.9.7):
  ImportExportService.importStudy / deserializeStudy / moveStudyAssetsDir, ZipUtil.unzip, IOUtils.findFiles /
  findDirectories / checkFilename, StudyDeserializer (StudyUploadUnmarshaller before 3.9.8), models.common.Study /
  Component / Batch (Jackson bindings), models.gui.StudyProperties / ComponentProperties / BatchProperties.validate(),
  WorkerService.isValidWorkerType; text fields go through jsoup 1.14.2 Jsoup.isValid(text, Safelist.none()).

ERROR   = JATOS refuses the import (or crashes on it), or a rule of our own (UUID format, component file
          present in the assets dir).
WARNING = JATOS imports it, but something is probably not what you want (or differs between 3.x versions).
Exit status: 0 if no errors (and, with --strict, no warnings), 1 otherwise, 2 on usage errors.
"""
import html.entities
import json
import posixpath
import re
import sys
import uuid
import zipfile

errors = []
warnings = []


def err(msg):
    errors.append(msg)


def warn(msg):
    warnings.append(msg)


# ---------------------------------------------------------------- helpers mirroring Java/Jackson/jsoup behaviour

def java_len(s):
    """String.length() in Java = UTF-16 code units."""
    return len(s.encode("utf-16-le")) // 2


def jackson_find_value(node, name):
    """JsonNode.findValue(name): depth-first, in field order, first match wins."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == name:
                return v
            r = jackson_find_value(v, name)
            if r is not None:
                return r
    elif isinstance(node, list):
        for v in node:
            r = jackson_find_value(v, name)
            if r is not None:
                return r
    return None


def jackson_as_int(v):
    """JsonNode.asInt() with default 0."""
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        try:
            return int(s)
        except ValueError:
            try:
                return int(float(s))
            except ValueError:
                return 0
    return 0


_BASE_ENTITIES = {k for k in html.entities.html5 if not k.endswith(";")}  # legacy refs allowed without ';'
_ALL_ENTITIES = {k[:-1] for k in html.entities.html5 if k.endswith(";")}
_NOT_CHARREF = set("\t\n\r\f <&")


def jsoup_no_html_problem(text):
    """Emulates jsoup 1.14.2 Jsoup.isValid(text, Safelist.none()) (Cleaner.isValidBodyHtml): false if any node
    would be discarded (tags, comments) or the tokenizer reports a parse error. Returns a reason or None."""
    if "<" in text:
        return "contains '<' (any tag/comment is discarded, a bare '<' is a parse error)"
    if "\0" in text:
        return "contains a NUL character"
    i, n = 0, len(text)
    while True:
        i = text.find("&", i)
        if i < 0:
            return None
        j = i + 1
        if j >= n or text[j] in _NOT_CHARREF:
            i = j
            continue
        if text[j] == "#":
            j += 1
            hexmode = j < n and text[j] in "xX"
            if hexmode:
                j += 1
            k = j
            digits = "0123456789abcdefABCDEF" if hexmode else "0123456789"
            while k < n and text[k] in digits:
                k += 1
            num = text[j:k]
            if not num:
                return "has '&#' without numerals (HTML parse error) at %r" % text[i:i + 12]
            if k >= n or text[k] != ";":
                return "numeric character reference without ';' at %r" % text[i:k + 1]
            val = int(num, 16 if hexmode else 10)
            if 0xD800 <= val <= 0xDFFF or val > 0x10FFFF or 0x80 <= val <= 0x9F:
                return "invalid numeric character reference %r" % text[i:k + 1]
            i = k + 1
            continue
        k = j
        while k < n and (text[k].isalpha()):
            k += 1
        while k < n and text[k] in "0123456789":
            k += 1
        name = text[j:k]
        legit = k < n and text[k] == ";"
        found = name in _BASE_ENTITIES or (name in _ALL_ENTITIES and legit)
        if not found:
            if legit:
                return "unknown named character reference %r (HTML parse error)" % ("&" + name + ";")
        elif not legit:
            return ("'&%s' is read as an HTML character reference without ';' (parse error); write '&amp;%s' "
                    "or avoid the '&'" % (name, name))
        i = k
    return None


def is_uuid(s):
    try:
        uuid.UUID(s)
    except (ValueError, AttributeError, TypeError):
        return False
    return bool(re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", s))


def tname(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}[type(v)]


# IOUtils.REGEX_ILLEGAL_IN_FILENAME = "[\\s\\n\\r\\t\\f*?\"\\\\\0/,`<>|:~!§$%&^°]"  (Java \s = ASCII whitespace)
_ILLEGAL_IN_FILENAME = re.compile("[ \t\n\x0b\f\r*?\"\\\\\0/,`<>|:~!§$%&^°]")
# StudyProperties.INVALID_DIR_NAMES
_RESERVED_DIR_NAMES = {"jatos", "publix", "public", "assets", "study_assets_root", "study_assets"}
# ComponentProperties: "^[\\w\\d_-][\\w\\d/_-]*\\.[\\w\\d_-]+$" (Java \w = [A-Za-z0-9_])
_HTML_FILE_PATH = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9/_-]*\.[A-Za-z0-9_-]+")
_WORKER_TYPES = {"Jatos", "PersonalSingle", "PersonalMultiple", "GeneralSingle", "GeneralMultiple", "MT",
                 "MTSandbox"}
# WorkerService.WORKER_TYPE_ALIASES (3.10.x; matched case-insensitively). Older 3.x did not validate them at all.
_WORKER_ALIASES = {"jatos", "ja", "personalsingle", "ps", "personalmultiple", "pm", "generalsingle", "gs",
                   "generalmultiple", "gm", "mturk", "mt", "mturksandbox", "mts", "mtsandbox"}
# (mtsandbox is not in the 3.10 alias map; it is the canonical WORKER_TYPE, checked separately below.)
_WORKER_ALIASES.discard("mtsandbox")

# Properties Jackson can bind on models.common.Study/Component/Batch (others are ignored: Play 2.7's
# Json.newDefaultMapper() sets FAIL_ON_UNKNOWN_PROPERTIES=false and JATOS's JsonObjectMapper builds on it).
_STUDY_KNOWN = {"uuid", "title", "description", "groupStudy", "linearStudy", "allowPreview", "dirName", "comments",
                "jsonData", "studyInput", "endRedirectUrl", "studyEntryMsg", "componentList", "batchList",
                "id", "locked", "active", "date"}
_COMPONENT_KNOWN = {"uuid", "title", "htmlFilePath", "reloadable", "active", "comments", "jsonData",
                    "componentInput", "id", "date"}
_BATCH_KNOWN = {"uuid", "title", "active", "maxActiveMembers", "maxTotalMembers", "maxTotalWorkers",
                "allowedWorkerTypes", "comments", "jsonData", "batchInput", "id"}


# ---------------------------------------------------------------- field checks

def check_string(obj, key, where, required=False, no_html=True, max_len=None, max_bytes=None):
    if key not in obj:
        if required:
            err("%s: required field '%s' is missing" % (where, key))
        return None
    v = obj[key]
    if v is None:
        if required:
            err("%s: '%s' is null" % (where, key))
        return None
    if isinstance(v, (dict, list)):
        err("%s: '%s' must be a string or null, got %s (Jackson cannot bind it to a String)" % (where, key, tname(v)))
        return None
    if not isinstance(v, str):
        warn("%s: '%s' is a %s; Jackson coerces it to a string - write a string" % (where, key, tname(v)))
        v = json.dumps(v)
    if no_html:
        p = jsoup_no_html_problem(v)
        if p:
            err("%s: '%s' fails JATOS's no-HTML check (jsoup isValid, Safelist.none): %s" % (where, key, p))
    if max_len is not None and java_len(v) > max_len:
        err("%s: '%s' is longer than %d characters" % (where, key, max_len))
    if max_bytes is not None and len(v.encode("utf-8")) > max_bytes:
        err("%s: '%s' is longer than %d bytes" % (where, key, max_bytes))
    return v


def check_bool(obj, key, where):
    v = obj.get(key)
    if v is None or isinstance(v, bool):
        return  # null -> Java default (FAIL_ON_NULL_FOR_PRIMITIVES is off)
    if isinstance(v, (int, float)) or (isinstance(v, str) and v.strip() in ("true", "false", "")):
        warn("%s: '%s' should be a JSON boolean, got %s %r (Jackson coerces it)" % (where, key, tname(v), v))
    else:
        err("%s: '%s' must be a JSON boolean, got %s %r (Jackson cannot bind it)" % (where, key, tname(v), v))


def check_input_json(obj, keys, where):
    present = [k for k in keys if k in obj]
    if len(present) > 1:
        warn("%s: both %s given; Jackson keeps whichever comes last" % (where, " and ".join(present)))
    for k in present:
        v = check_string(obj, k, where, no_html=False)
        if v:
            try:
                json.loads(v)
            except ValueError as e:
                err("%s: '%s' must be a string holding valid JSON (e.g. \"{\\\"a\\\":1}\"): %s" % (where, k, e))


def check_uuid(obj, where, required):
    v = check_string(obj, "uuid", where, required=required)
    if v is None:
        if not required and "uuid" not in obj:
            warn("%s: no 'uuid'; JATOS generates a random one (re-imports then create duplicates)" % where)
        return None
    if not is_uuid(v):
        err("%s: 'uuid' %r is not a UUID (JATOS itself only checks it is HTML-free, but every JATOS export "
            "uses a UUID and the study is matched by it on re-import)" % (where, v))
    return v


def check_title(obj, where):
    v = check_string(obj, "title", where, required=True, max_len=255)
    if v is not None and not v.strip():
        err("%s: 'title' is blank" % where)


def check_unknown(obj, known, where):
    for k in obj:
        if k not in known:
            warn("%s: unknown field '%s' (ignored by JATOS)" % (where, k))


# ---------------------------------------------------------------- archive

def read_zip(path):
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        err("not a readable ZIP file: %s" % e)
        return None, None, None
    files = {}   # normalized path -> ZipInfo
    dirs = set()  # normalized dir paths (explicit or implied)
    for info in z.infolist():
        name = info.filename
        if info.flag_bits & 0x1:
            err("zip entry %r is encrypted (java.util.zip cannot read it)" % name)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            err("zip entry %r uses compression method %d; java.util.zip.ZipFile reads only stored (0) or "
                "deflated (8)" % (name, info.compress_type))
        is_dir = name.endswith("/")
        # ZipUtil.unzip: destDir.resolve(name).normalize() must stay inside destDir
        if name.startswith("/"):
            err("zip entry %r: illegal name (absolute path) - JATOS aborts the unzip" % name)
            continue
        norm = posixpath.normpath("/" + name)
        # detect '..' escaping: normpath of '/'+name clamps at root, so compare component-wise
        depth = 0
        escaped = False
        for part in name.split("/"):
            if part == "..":
                depth -= 1
                if depth < 0:
                    escaped = True
            elif part not in ("", "."):
                depth += 1
        if escaped:
            err("zip entry %r: illegal name (escapes the archive root) - JATOS aborts the unzip" % name)
            continue
        rel = norm.lstrip("/")
        if not rel:
            continue
        parts = rel.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
        if is_dir:
            dirs.add(rel)
        else:
            if rel in files:
                err("zip has the file %r twice; JATOS's unzip (Files.copy without REPLACE_EXISTING) fails" % rel)
            files[rel] = info
    for d in dirs:
        if d in files:
            err("zip has %r both as a file and as a directory; unzip fails" % d)
    return z, files, dirs


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    strict = "--strict" in argv[1:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path = args[0]
    z, files, dirs = read_zip(path)
    if z is None:
        return report(strict)

    # --- the .jas: IOUtils.findFiles(unzipDir, "", "jas") = top-level entries (files or dirs) whose name ends
    #     with "jas" (case-sensitive); ImportExportService requires exactly one.
    root_files = sorted(f for f in files if "/" not in f)
    root_dirs = sorted(d for d in dirs if "/" not in d)
    jas = [f for f in root_files if f.endswith("jas")] + [d for d in root_dirs if d.endswith("jas")]
    if len(jas) != 1:
        err("the archive root must hold exactly one entry whose name ends in 'jas' (the study file); found %d: %s"
            " (JATOS: 'File is not a valid JATOS study')" % (len(jas), jas))
        nested = [f for f in files if f.endswith(".jas") and "/" in f]
        if nested:
            err(".jas file(s) not at the root (JATOS only looks at the root): %s" % nested)
    jas_name = jas[0] if len(jas) == 1 else None
    if jas_name is not None and jas_name in dirs:
        err("%r is a directory, not the study file" % jas_name)
        jas_name = None
    if jas_name is not None and not jas_name.endswith(".jas"):
        warn("study file %r ends in 'jas' but not '.jas'" % jas_name)
    for f in root_files:
        if f.lower().endswith(".jas") and not f.endswith("jas"):
            err("%r: the suffix must be lower-case 'jas' (JATOS matches it case-sensitively)" % f)

    # --- study assets dir: IOUtils.findDirectories(unzipDir) = all top-level dirs; 0 -> JATOS creates an empty
    #     assets dir (warning only); 1 -> moved to <study assets root>/<dirName>; >1 -> IOException.
    assets_dir = None
    if len(root_dirs) > 1:
        err("the archive root must hold at most one directory (the study assets); found %d: %s "
            "(JATOS: 'There are more than one directory in the ZIP file.')" % (len(root_dirs), root_dirs))
    elif len(root_dirs) == 0:
        warn("no directory at the archive root: JATOS creates an empty study assets directory")
    else:
        assets_dir = root_dirs[0]

    study = None
    if jas_name is not None:
        study = check_jas(z.read(files[jas_name]), jas_name)
    if study is not None:
        check_assets(study, assets_dir, files)
    return report(strict)


def check_jas(raw, jas_name):
    where = jas_name
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        err("%s: not valid UTF-8 (JATOS 3.9.8+ reads it with Files.readString): %s" % (where, e))
        return None
    if text.startswith("\ufeff"):
        err("%s: starts with a UTF-8 BOM; Jackson's readTree(String) rejects it" % where)
        text = text[1:]
    try:
        root = json.loads(text)
    except ValueError as e:
        err("%s: not valid JSON: %s" % (where, e))
        return None
    if not isinstance(root, dict):
        err("%s: top level must be a JSON object {\"version\": \"3\", \"data\": {...}}" % where)
        return None
    # StudyDeserializer: readTree(json).findValue("version").asInt(); findValue("data") likewise
    if "version" not in root:
        warn("%s: no top-level 'version'" % where)
    vnode = jackson_find_value(root, "version")
    if vnode is None:
        err("%s: no 'version' field anywhere (JATOS fails with a NullPointerException)" % where)
        return None
    version = jackson_as_int(vnode)
    if not (vnode == "3" or vnode == 3):
        warn("%s: 'version' is %r; JATOS exports the string \"3\"" % (where, vnode))
    if version > 3:
        err("%s: version %d is newer than JATOS 3.x's Study.SERIAL_VERSION 3" % (where, version))
        return None
    if version in (0, 2):
        err("%s: version %r is read as the legacy v2 format (StudyV2); this checker only checks version 3"
            % (where, vnode))
        return None
    if version != 3:
        err("%s: unsupported version %r (JATOS accepts 0, 2, 3)" % (where, vnode))
        return None
    if "data" not in root:
        warn("%s: no top-level 'data' (JATOS takes the first 'data' found anywhere)" % where)
    data = jackson_find_value(root, "data")
    if not isinstance(data, dict):
        err("%s: 'data' must be a JSON object, got %s" % (where, tname(data) if data is not None else "nothing"))
        return None
    for k in root:
        if k not in ("version", "data"):
            warn("%s: unknown top-level field '%s'" % (where, k))

    w = where + " data"
    check_unknown(data, _STUDY_KNOWN, w)
    check_uuid(data, w, required=True)
    check_title(data, w)
    check_string(data, "description", w)
    check_string(data, "comments", w)
    check_string(data, "endRedirectUrl", w)
    if isinstance(data.get("endRedirectUrl"), str) and java_len(data["endRedirectUrl"]) > 255:
        warn("%s: 'endRedirectUrl' longer than 255 characters may not fit its database column" % w)
    check_string(data, "studyEntryMsg", w, max_bytes=1000)
    for b in ("groupStudy", "linearStudy", "allowPreview", "locked", "active"):
        check_bool(data, b, w)
    check_input_json(data, ("jsonData", "studyInput"), w)
    if "studyInput" in data and "jsonData" not in data:
        warn("%s: 'studyInput' is only understood by JATOS 3.10+; older 3.x expect 'jsonData'" % w)
    if "dirName" not in data:
        err("%s: required field 'dirName' is missing (JATOS would fall back to a random UUID as dir name)" % w)
    elif data["dirName"] is None:
        err("%s: 'dirName' is null (JATOS skips its validation and then fails)" % w)
    else:
        d = check_string(data, "dirName", w, max_len=255, no_html=False)
        if d is not None:
            if not d.strip():
                err("%s: 'dirName' is blank" % w)
            bad = sorted(set(_ILLEGAL_IN_FILENAME.findall(d)))
            if bad:
                err("%s: 'dirName' %r has characters JATOS forbids (IOUtils.REGEX_ILLEGAL_IN_FILENAME): %s"
                    % (w, d, bad))
            if d in _RESERVED_DIR_NAMES:
                err("%s: 'dirName' %r is reserved by JATOS" % (w, d))
            if d in (".", ".."):
                err("%s: 'dirName' %r is not a directory name" % (w, d))

    comps = data.get("componentList", [])
    if "componentList" not in data:
        warn("%s: no 'componentList': the study has no components" % w)
    if not isinstance(comps, list):
        err("%s: 'componentList' must be an array, got %s" % (w, tname(comps)))
        comps = []
    elif not comps:
        warn("%s: 'componentList' is empty: the study cannot be run" % w)
    seen = {}
    for i, c in enumerate(comps):
        cw = "%s componentList[%d]" % (w, i)
        if not isinstance(c, dict):
            err("%s: must be an object, got %s" % (cw, tname(c)))
            continue
        check_unknown(c, _COMPONENT_KNOWN, cw)
        u = check_uuid(c, cw, required=False)
        if u:
            if u in seen:
                err("%s: uuid %s repeats %s" % (cw, u, seen[u]))
            seen[u] = cw
        check_title(c, cw)
        hp = check_string(c, "htmlFilePath", cw, no_html=False)
        if hp is None or not hp.strip():
            warn("%s: no 'htmlFilePath': the component has no HTML file to run" % cw)
        else:
            if java_len(hp) > 255:
                err("%s: 'htmlFilePath' longer than 255 characters" % cw)
            if not _HTML_FILE_PATH.fullmatch(hp):
                err("%s: 'htmlFilePath' %r does not match JATOS's path pattern "
                    "^[\\w\\d_-][\\w\\d/_-]*\\.[\\w\\d_-]+$ (relative to the study assets dir, ASCII letters/"
                    "digits/_/-//, exactly one '.', no leading './' or '/')" % (cw, hp))
        check_bool(c, "reloadable", cw)
        check_bool(c, "active", cw)
        check_string(c, "comments", cw)
        check_input_json(c, ("jsonData", "componentInput"), cw)

    batches = data.get("batchList", [])
    if "batchList" not in data:
        warn("%s: no 'batchList': JATOS creates a default batch" % w)
    if not isinstance(batches, list):
        err("%s: 'batchList' must be an array, got %s" % (w, tname(batches)))
        batches = []
    seen = {}
    for i, b in enumerate(batches):
        bw = "%s batchList[%d]" % (w, i)
        if not isinstance(b, dict):
            err("%s: must be an object, got %s" % (bw, tname(b)))
            continue
        check_unknown(b, _BATCH_KNOWN, bw)
        u = check_uuid(b, bw, required=False)
        if u:
            if u in seen:
                err("%s: uuid %s repeats %s" % (bw, u, seen[u]))
            seen[u] = bw
        check_title(b, bw)
        check_bool(b, "active", bw)
        nums = {}
        for k in ("maxActiveMembers", "maxTotalMembers", "maxTotalWorkers"):
            v = b.get(k)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                err("%s: '%s' must be an integer or null, got %s" % (bw, k, tname(v)))
                continue
            if v < 1:
                err("%s: '%s' must be at least 1 (or null for no limit)" % (bw, k))
            nums[k] = v
        if "maxTotalMembers" in nums and "maxActiveMembers" in nums and \
                nums["maxTotalMembers"] < nums["maxActiveMembers"]:
            err("%s: 'maxTotalMembers' must be >= 'maxActiveMembers'" % bw)
        wt = b.get("allowedWorkerTypes")
        if wt is None:
            if "allowedWorkerTypes" in b:
                err("%s: 'allowedWorkerTypes' is null (JATOS iterates over it during validation)" % bw)
        elif not isinstance(wt, list):
            err("%s: 'allowedWorkerTypes' must be an array of strings" % bw)
        else:
            for t in wt:
                if not isinstance(t, str):
                    err("%s: allowedWorkerTypes entry %r is not a string" % (bw, t))
                elif t in _WORKER_TYPES:
                    pass
                elif t.lower() in _WORKER_ALIASES:
                    warn("%s: worker type %r is an alias only JATOS 3.10+ understands; use one of %s"
                         % (bw, t, sorted(_WORKER_TYPES)))
                else:
                    err("%s: invalid worker type %r (valid: %s)" % (bw, t, sorted(_WORKER_TYPES)))
        check_string(b, "comments", bw)
        check_input_json(b, ("jsonData", "batchInput"), bw)
    return data


def check_assets(study, assets_dir, files):
    dir_name = study.get("dirName") if isinstance(study.get("dirName"), str) else None
    if assets_dir is not None and dir_name is not None and assets_dir != dir_name:
        warn("the assets directory in the zip is %r but dirName is %r: JATOS renames it to dirName on import "
             "(harmless, but JATOS's own exports use the same name)" % (assets_dir, dir_name))
    comps = study.get("componentList")
    if not isinstance(comps, list):
        return
    for i, c in enumerate(comps):
        if not isinstance(c, dict):
            continue
        hp = c.get("htmlFilePath")
        if not isinstance(hp, str) or not hp.strip():
            continue
        if assets_dir is None:
            err("componentList[%d]: htmlFilePath %r cannot be found: the archive has no single study assets "
                "directory" % (i, hp))
            continue
        target = posixpath.normpath(assets_dir + "/" + hp)
        if target not in files:
            err("componentList[%d]: htmlFilePath %r is not in the archive (expected the file %r); JATOS serves "
                "component files from <study assets>/<htmlFilePath>" % (i, hp, target))


def report(strict):
    for m in errors:
        print("ERROR: " + m)
    for m in warnings:
        print("WARNING: " + m)
    if not errors and not warnings:
        print("OK")
    elif not errors:
        print("OK with %d warning(s)" % len(warnings))
    else:
        print("%d error(s), %d warning(s)" % (len(errors), len(warnings)))
    return 1 if errors or (strict and warnings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
