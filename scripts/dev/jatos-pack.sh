#!/usr/bin/env bash
# Pack the built app as a JATOS study archive: dist-jatos/wmlab.jzip
#
#   scripts/dev/jatos-pack.sh                       # builds dist/ (release) unless it exists, then packs
#   REBUILD=1 scripts/dev/jatos-pack.sh             # always rebuild dist/ first
#   QUERY='tasks=VIR,CD-Color&tpc=2&practice=1' scripts/dev/jatos-pack.sh
#
# The archive (a zip; JATOS → "Import study") holds (checked against what JATOS 3.x's importer requires by
# scripts/dev/check-jzip.py, which tests/e2e/jatos.test.mjs runs on a fresh pack):
#   - wmlab.jas: the study description (JATOS study-archive JSON, version 3): one study "WM Lab" with
#     one component whose htmlFilePath is index.html, dirName "wmlab";
#   - wmlab/…: the files of dist/, where index.html is a copy with file paths made relative and two
#     additions: the
#     <script src="jatos.js"></script> tag (served by JATOS itself, never part of the normal build)
#     and a small script that opens the study link `#/take?$QUERY` when the page has no route.
# Inside JATOS the app sees `window.jatos` and sends results through jatos.appendResultData (one JSON
# record per block) and jatos.endStudy at the end, instead of POSTing to an endpoint. JATOS's own
# worker ids are not passed in; give `pid=` in QUERY or let JATOS keep them with its results.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
QUERY="${QUERY:-tasks=all&tpc=1&practice=1}"

if [ "${REBUILD:-0}" = "1" ] || [ ! -f dist/index.html ]; then
  source "$root/scripts/dev/env.sh"
  trunk build --release
fi
test -f dist/index.html || { echo "dist/index.html missing" >&2; exit 1; }

mkdir -p dist-jatos
QUERY="$QUERY" python3 - <<'EOF'
import json, os, uuid, zipfile, html

query = os.environ["QUERY"]
src = "dist"
out = "dist-jatos/wmlab.jzip"
index = open(os.path.join(src, "index.html"), encoding="utf-8").read()
boot = (
    '<script src="jatos.js"></script>\n'
    "<script>if (!location.hash || location.hash === '#' || location.hash === '#/') "
    "location.hash = '#/take?' + " + json.dumps(query) + ";</script>\n"
)
assert "</head>" in index, "index.html has no </head>"
# Trunk writes absolute paths (/wmlab-app-….js); JATOS serves the study under its own path, so make
# every reference to a dist file relative.
for name in os.listdir(src):
    for q in ('"', "'"):
        index = index.replace(q + "/" + name, q + "./" + name)
index = index.replace("</head>", boot + "</head>", 1)

study = {
    "version": "3",
    "data": {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "wmlab:" + query)),
        "title": "WM Lab",
        # No study link here: JATOS refuses HTML-like text in descriptions, and `&name` in a query reads
        # as an HTML entity; the link goes in the component's JSON input below.
        "description": "Working-memory tasks (WorM) and N-back for people, from WM Lab.",
        "groupStudy": False,
        "linearStudy": False,
        "allowPreview": False,
        "dirName": "wmlab",
        "comments": "Packed by scripts/dev/jatos-pack.sh",
        "jsonData": None,
        "endRedirectUrl": "",
        "studyEntryMsg": None,
        "componentList": [{
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "wmlab-component:" + query)),
            "title": "WM Lab session",
            "htmlFilePath": "index.html",
            "reloadable": True,
            "active": True,
            "comments": "",
            "jsonData": json.dumps({"study_link": "#/take?" + query}),
        }],
        "batchList": [{
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, "wmlab-batch:" + query)),
            "title": "Default",
            "active": True,
            "maxActiveMembers": None,
            "maxTotalMembers": None,
            "maxTotalWorkers": None,
            "allowedWorkerTypes": ["Jatos", "PersonalSingle", "PersonalMultiple", "GeneralSingle", "GeneralMultiple"],
            "comments": None,
            "jsonData": None,
        }],
    },
}
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("wmlab.jas", json.dumps(study, indent=2))
    for dirpath, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # skip trunk's .stage
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, src)
            if rel == "index.html":
                z.writestr("wmlab/index.html", index)
            else:
                z.write(p, "wmlab/" + rel)
print(f"{out}: {os.path.getsize(out)} bytes, study link #/take?{query}")
EOF
