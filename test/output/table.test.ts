import t from "tap";
import { formatTable } from "../../lib/output/table.js";

t.test("formatTable pads every column but the last to its widest cell plus 3", async (t) => {
  t.same(
    formatTable([
      ["KEY", "BACKOFF", "LAST ERROR"],
      ["default/a_busybox", "10s", "ErrImagePull: not found"],
      ["b", "5m", ""],
    ]),
    [
      "KEY                 BACKOFF   LAST ERROR",
      "default/a_busybox   10s       ErrImagePull: not found",
      "b                   5m",
    ],
  );
  t.same(formatTable([]), []);
});
