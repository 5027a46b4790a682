#!/usr/bin/python3
# Checks a kcidb.json against KCIDB's official schema (Draft 2020-12, Debian's
# python3-jsonschema) and its links: every build's checkout, every test's build, every
# incident's issue and its build or test exist, and no id repeats. Prints one line: "valid:"
# with the counts and the boot tests' statuses by harness status; exits 1 on any problem.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
try:
    jsonschema.Draft202012Validator(schema).validate(doc)
except jsonschema.ValidationError as e:
    print("invalid: %s at %s" % (e.message, "/".join(str(p) for p in e.absolute_path)))
    sys.exit(1)
kinds = ["checkouts", "builds", "tests", "issues", "incidents"]
ids = {k: [o["id"] for o in doc.get(k, [])] for k in kinds}
problems = [k + ": an id repeats" for k in kinds if len(set(ids[k])) != len(ids[k])]
problems += ["build %s: no checkout %s" % (b["id"], b["checkout_id"])
             for b in doc["builds"] if b["checkout_id"] not in ids["checkouts"]]
problems += ["test %s: no build %s" % (t["id"], t["build_id"])
             for t in doc["tests"] if t["build_id"] not in ids["builds"]]
for i in doc["incidents"]:
    if i["issue_id"] not in ids["issues"]:
        problems.append("incident %s: no issue %s" % (i["id"], i["issue_id"]))
    if i.get("build_id") not in ids["builds"] and i.get("test_id") not in ids["tests"]:
        problems.append("incident %s: no build or test" % i["id"])
if problems:
    print("invalid: " + "; ".join(problems[:5]))
    sys.exit(1)
boots = sorted({"%s=%s" % (t["misc"]["harness_status"], t["status"])
                for t in doc["tests"] if t["path"] == "kcmp_matrix.boot"})
print("valid: %s; boot tests %s" % (
    " ".join("%d %s" % (len(ids[k]), k) for k in kinds), " ".join(boots)))
