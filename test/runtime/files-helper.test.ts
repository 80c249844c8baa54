import t from "tap";
import { buildFilesHelperArgs } from "../../lib/runtime/files-helper.js";

t.test("the files helper's argv: one-off, no network, labelled, volumes by -v, paths by --mount", async (t) => {
  t.same(
    buildFilesHelperArgs(
      "proxy:1",
      ["-files", "/", "files/volumes"],
      [
        { type: "volume", source: "ns_web_podrun.files", target: "/files" },
        { type: "volume", source: "ns_web_cache", target: "/empty/cache", readOnly: true },
        { type: "bind", source: "/state/engine-check", target: "/check", readOnly: true },
      ],
    ),
    [
      "run",
      "--rm",
      "-i",
      "--network",
      "none",
      "--label",
      "io.podrun.files-helper=true",
      "-v",
      "ns_web_podrun.files:/files",
      "-v",
      "ns_web_cache:/empty/cache:ro",
      "--mount",
      "type=bind,source=/state/engine-check,target=/check,readonly",
      "proxy:1",
      "-files",
      "/",
      "files/volumes",
    ],
  );
});
