/**
 * Webhook `bodyTemplate` rendering (compat reference §6.4). Tokens are `{{ name }}`, with or without
 * spaces, and may follow a path: `{{ first_line_object._line }}`, `{{ line_objects[0] }}`. A string
 * that is exactly one token naming an object or array becomes that JSON value; anywhere else a
 * token becomes text. Unknown tokens are left as written, so a typo is visible in the result.
 */
const TOKEN = /\{\{\s*([A-Za-z_][\w$]*(?:\.[\w$@-]+|\[\d+\])*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][\w$]*(?:\.[\w$@-]+|\[\d+\])*)\s*\}\}$/;

function resolve(context: Record<string, unknown>, path: string): unknown {
  let value: unknown = context;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function renderString(text: string, context: Record<string, unknown>): unknown {
  const whole = WHOLE.exec(text);
  if (whole) {
    const value = resolve(context, whole[1]);
    if (value !== undefined && typeof value === 'object') return value;
  }
  return text.replace(TOKEN, (token, path: string) => {
    const value = resolve(context, path);
    return value === undefined ? token : asText(value);
  });
}

export function renderBodyTemplate(template: unknown, context: Record<string, unknown>): unknown {
  if (typeof template === 'string') return renderString(template, context);
  if (Array.isArray(template)) return template.map((item) => renderBodyTemplate(item, context));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderBodyTemplate(value, context)]));
  }
  return template;
}
