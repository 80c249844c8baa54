// A label map as kubectl prints it in a column or a description (apimachinery's labels.FormatLabels,
// https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/labels/labels.go): `k=v` pairs
// sorted by key, joined by commas; `<none>` for none.

export function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const pairs = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.length > 0 ? pairs.map(([key, value]) => `${key}=${value}`).join(",") : "<none>";
}
