import { html } from "../html.js";
import { navigate, useRoute, withQuery } from "../router.js";

export interface Field {
  name: string;
  label: string;
  placeholder?: string;
  options?: readonly string[];
  /** What the empty choice means (default "any"). */
  none?: string;
}

/**
 * Filters live in the URL: submitting the form navigates, so a filtered view can be reloaded,
 * bookmarked and shared. Changing a filter goes back to the first page.
 */
export function FilterForm({ fields, reset = ["page", "before"] }: { fields: Field[]; reset?: string[] }) {
  const { path, query } = useRoute();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const changes: Record<string, string | null> = {};
    for (const field of fields) changes[field.name] = String(form.get(field.name) ?? "").trim() || null;
    for (const name of reset) changes[name] = null;
    navigate(withQuery(path, query, changes));
  };
  return html`<form class="filters" role="search" onSubmit=${submit} key=${query.toString()}>
    ${fields.map((field) =>
      field.options
        ? html`<label
            >${field.label}
            <select name=${field.name} value=${query.get(field.name) ?? ""}>
              <option value="">${field.none ?? "any"}</option>
              ${field.options.map((o) => html`<option value=${o}>${o}</option>`)}
            </select></label
          >`
        : html`<label
            >${field.label}
            <input name=${field.name} type="search" value=${query.get(field.name) ?? ""} placeholder=${field.placeholder ?? ""}
          /></label>`,
    )}
    <button type="submit">Apply</button>
  </form>`;
}
