/**
 * `/docs`: a readable reference rendered on the server from the OpenAPI document. Self-contained
 * (no scripts, no external assets), so it works offline and behind strict content policies.
 */
type Schema = Record<string, any>;

const escape = (text: unknown) =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function typeOf(schema: Schema | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  const types = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  const extra = [schema.format, schema.enum ? `one of ${schema.enum.filter((v: unknown) => v !== null).join(', ')}` : undefined]
    .filter(Boolean)
    .join('; ');
  return extra ? `${types} (${extra})` : types;
}

function propertiesTable(schema: Schema | undefined): string {
  const props = schema?.properties as Record<string, Schema> | undefined;
  if (!props) return '';
  const required = new Set<string>(schema?.required ?? []);
  const rows = Object.entries(props)
    .map(([name, p]) => `<tr><td><code>${escape(name)}</code>${required.has(name) ? ' *' : ''}</td><td>${escape(typeOf(p))}</td><td>${p.readOnly ? 'read-only' : ''}</td></tr>`)
    .join('');
  return `<table><tr><th>field</th><th>type</th><th></th></tr>${rows}</table>`;
}

export function renderDocsPage(document: Schema): string {
  const schemas = document.components?.schemas ?? {};
  const resolve = (schema: Schema | undefined) => (schema?.$ref ? schemas[String(schema.$ref).split('/').pop()!] : schema);
  const sections: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const params = ((op.parameters ?? []) as Schema[])
        .filter((p) => !p.$ref)
        .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(typeOf(p.schema))}</td><td>${escape(p.description)}</td></tr>`)
        .join('');
      const body = resolve(op.requestBody?.content?.['application/json']?.schema);
      const responses = Object.entries(op.responses as Record<string, Schema>)
        .map(([status, r]) => `<li><code>${status}</code> ${escape(r.description ?? String(r.$ref ?? '').split('/').pop())}</li>`)
        .join('');
      sections.push(`<section id="${escape(op.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary)}. ${escape(op.description)}</p>
${params ? `<h4>Parameters</h4><table><tr><th>name</th><th>type</th><th></th></tr>${params}</table>` : ''}
${body ? `<h4>Body</h4><p>${escape(body.description)}</p>${propertiesTable(body)}` : ''}
<h4>Responses</h4><ul>${responses}</ul>
</section>`);
    }
  }
  const models = Object.entries(schemas as Record<string, Schema>)
    .filter(([name]) => !/(Create|Update)$/.test(name))
    .map(([name, schema]) => `<section id="schema-${escape(name)}"><h3>${escape(name)}</h3><p>${escape(schema.description)}</p>${propertiesTable(schema)}</section>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(document.info?.title)} ${escape(document.info?.version)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
code{font:13px ui-monospace,monospace;background:#f2f4f7;padding:.1em .3em;border-radius:3px}
table{border-collapse:collapse;margin:.5rem 0;width:100%}td,th{border-bottom:1px solid #e3e6ea;padding:.25rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #d0d5dc;padding:.5rem 0}.method{font-weight:700;padding:.1em .4em;border-radius:3px;color:#fff}
.get{background:#2f6fdf}.post{background:#1f8a4c}.patch{background:#b7791f}.delete{background:#c53030}.put{background:#6b46c1}
</style></head><body>
<h1>${escape(document.info?.title)} <small>${escape(document.info?.version)}</small></h1>
<p>${escape(document.info?.description)}</p>
<p>Machine-readable description: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI ${escape(document.openapi)}).</p>
<h2>Operations</h2>${sections.join('\n')}
<h2>Schemas</h2>${models}
</body></html>`;
}
