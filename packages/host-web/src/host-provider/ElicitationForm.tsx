/**
 * An app's MCP server's question (`elicitation/create`) in the shell's dialog: its message, then one field per
 * property of its flat `requestedSchema` — text (with its format), a number, a yes/no box, or a choice from an
 * enum — with the schema's bounds as the fields' own constraints. No properties: a plain accept / decline. The
 * Runtime checks the answer against the schema again before the server sees it.
 */
import { isRecord, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { ElicitationPrompt } from "@lineup/runtime";
import { t } from "../i18n/index.js";

interface Field {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly required: boolean;
}

const fieldsOf = (schema: JsonObject): Field[] => {
  const properties = schema["properties"];
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  if (!isRecord(properties)) return [];
  return Object.entries(properties).flatMap(([name, field]) => (isRecord(field) ? [{ name, schema: field, required: required.includes(name) }] : []));
};

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** An enum's choices with their labels (`enumNames`, or `oneOf` of `{const, title}`). */
function choicesOf(schema: Record<string, unknown>): { value: string; label: string }[] | undefined {
  const values = schema["enum"];
  if (Array.isArray(values)) {
    const names = Array.isArray(schema["enumNames"]) && schema["enumNames"].length === values.length ? schema["enumNames"] : values;
    return values.map((value, i) => ({ value: String(value), label: String(names[i]) }));
  }
  const oneOf = schema["oneOf"];
  if (Array.isArray(oneOf)) return oneOf.flatMap((option) => (isRecord(option) && "const" in option ? [{ value: String(option["const"]), label: String(text(option["title"]) ?? option["const"]) }] : []));
  return undefined;
}

const INPUT_TYPE: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

function FieldInput({ field }: { field: Field }) {
  const { name, schema, required } = field;
  const id = `elicit-${name}`;
  const label = text(schema["title"]) ?? name;
  const hint = text(schema["description"]);
  const type = text(schema["type"]);
  const common = { id, name, required, "aria-describedby": hint === undefined ? undefined : `${id}-hint` };
  const choices = choicesOf(schema);
  let input;
  if (type === "boolean") {
    input = <input type="checkbox" {...common} required={false} defaultChecked={schema["default"] === true} />;
  } else if (choices !== undefined) {
    input = (
      <select {...common} defaultValue={text(schema["default"]) ?? ""}>
        <option value="">{t("elicit.choose")}</option>
        {choices.map((choice) => (
          <option value={choice.value}>{choice.label}</option>
        ))}
      </select>
    );
  } else if (type === "number" || type === "integer") {
    input = <input type="number" {...common} step={type === "integer" ? 1 : "any"} min={num(schema["minimum"])} max={num(schema["maximum"])} defaultValue={num(schema["default"])?.toString()} />;
  } else {
    input = <input type={INPUT_TYPE[text(schema["format"]) ?? ""] ?? "text"} {...common} minLength={num(schema["minLength"])} maxLength={num(schema["maxLength"])} defaultValue={text(schema["default"])} />;
  }
  return (
    <label class={type === "boolean" ? "elicit-field elicit-check" : "elicit-field stack"} for={id}>
      <span>{label}</span>
      {input}
      {hint === undefined ? null : (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
    </label>
  );
}

/** What the form holds, typed as its schema says; an optional field left empty is left out. */
function contentOf(form: HTMLFormElement, fields: readonly Field[]): JsonObject {
  const content: Record<string, JsonValue> = {};
  for (const field of fields) {
    const element = form.elements.namedItem(field.name) as HTMLInputElement | HTMLSelectElement | null;
    if (element === null) continue;
    const type = text(field.schema["type"]);
    if (type === "boolean") content[field.name] = (element as HTMLInputElement).checked;
    else if (element.value === "") continue;
    else if (type === "number" || type === "integer") content[field.name] = Number(element.value);
    else content[field.name] = element.value;
  }
  return content;
}

export function ElicitationForm({ prompt, onSubmit, onDecline }: { prompt: ElicitationPrompt; onSubmit: (content: JsonObject) => void; onDecline: () => void }) {
  const fields = fieldsOf(prompt.requested_schema);
  return (
    <form
      class="capability-prompt-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(contentOf(event.currentTarget, fields));
      }}
    >
      <h2 id="capability-prompt-title">{t("elicit.asks", { app: prompt.app_name })}</h2>
      <div id="capability-prompt-body" class="capability-prompt-body">
        <p translate={false}>{prompt.message}</p>
        {fields.map((field) => (
          <FieldInput field={field} />
        ))}
      </div>
      <div class="capability-prompt-actions">
        <button type="button" class="secondary" onClick={onDecline}>
          {t("elicit.decline")}
        </button>
        <button type="submit" class="primary" autofocus={fields.length === 0}>
          {fields.length === 0 ? t("elicit.accept") : t("elicit.send")}
        </button>
      </div>
    </form>
  );
}
