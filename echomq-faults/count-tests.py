#!/usr/bin/env python3
"""count-tests.py: counts what the surefire reports of the last build ran, by kind, so the number reported is honest.

Usage: echomq-faults/count-tests.py [repository root]   (after mvn verify; reads */target/surefire-reports)

hand-written:  a test method run once;
parameterized: one invocation of a @ParameterizedTest whose cases are written out (lists, enums, boundaries);
generated:     one invocation of the generated-case suites below, whose cases are the rules' boundaries plus
               seeded draws (NameCases, Garbage), each distinct.
"""
import glob, re, sys, xml.etree.ElementTree as ET, collections
GENERATED = {"KeyNamespacePropertyTest", "LockInputPropertyTest", "QueueInputPropertyTest", "RedisUrlPropertyTest",
             "CliBadInputTest"}
rows = collections.Counter()
methods = collections.defaultdict(set)
skipped = failed = 0
for path in sorted(glob.glob((sys.argv[1] if len(sys.argv) > 1 else ".") + "/*/target/surefire-reports/TEST-*.xml")):
    module = path.split("/")[-4]
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        cls = tc.get("classname").split(".")[-1]
        name = tc.get("name")
        if tc.find("skipped") is not None:
            skipped += 1
        if tc.find("failure") is not None or tc.find("error") is not None:
            failed += 1
        param = bool(re.search(r"\[\d+\]$", name))
        method = re.sub(r"\(.*$", "", name) if param else name
        if cls in GENERATED and param:
            kind = "generated"
        elif param:
            kind = "parameterized"
        else:
            kind = "hand-written"
        rows[(module, kind)] += 1
        methods[(module, kind)].add(cls + "." + method)
total = collections.Counter()
for (module, kind), n in sorted(rows.items()):
    print(f"{module:16} {kind:14} {n:6} invocations from {len(methods[(module, kind)]):4} methods")
    total[kind] += n
print("total", dict(total), "all", sum(total.values()), "skipped", skipped, "failed", failed)
