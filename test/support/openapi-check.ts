import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

/**
 * Checks live responses against the gateway's own OpenAPI description: the operation must exist,
 * document the status, and the JSON body must match that response's schema.
 */
export function createResponseChecker(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The description pairs idn-email with the exact pattern the API enforces; the pattern does the checking.
  ajv.addFormat('idn-email', true);
  ajv.addSchema(document, 'openapi');
  const pointer = (parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  return function check(method: string, url: string, status: number, body: unknown): void {
    const path = new URL(url).pathname.replace(/^\/api(?=\/v1\/)/, '');
    const match = templates.find((t) => t.pattern.test(path));
    if (!match) return; // Undocumented paths (health, legacy, unknown) are not operations.
    const operation = document.paths[match.template][method.toLowerCase()];
    if (!operation) return; // A 405 for a method the path does not offer.
    // `default` stands for every status the operation does not list (the tracking paths' errors).
    const documented = operation.responses[String(status)] ? String(status) : operation.responses.default ? 'default' : String(status);
    let response = operation.responses[documented];
    let base = ['paths', match.template, method.toLowerCase(), 'responses', documented];
    if (!response) throw new Error(`${method} ${match.template} answered ${status}, which the OpenAPI description does not list`);
    if (response.$ref) {
      const name = String(response.$ref).split('/').pop()!;
      response = document.components.responses[name];
      base = ['components', 'responses', name];
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== undefined) throw new Error(`${method} ${match.template} ${status} has a body the description does not declare`);
      return;
    }
    const validate = ajv.getSchema(`openapi#/${pointer([...base, 'content', 'application/json', 'schema'])}`);
    if (!validate) throw new Error(`no schema compiled for ${method} ${match.template} ${status}`);
    if (!validate(body)) {
      throw new Error(`${method} ${path} ${status} does not match the OpenAPI description: ${ajv.errorsText(validate.errors)}`);
    }
  };
}
