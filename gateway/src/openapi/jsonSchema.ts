/** The small slice of OpenAPI 3.1 / JSON Schema 2020-12 types the generator produces. */

/** A JSON Schema object (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
export type JsonSchema = { [keyword: string]: unknown };

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

export type OpenApiRef = { $ref: string };

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiRef>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, OpenApiResponse | OpenApiRef>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description?: string; variables?: Record<string, { default: string }> }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

export const schemaRef = (name: string): OpenApiRef => ({ $ref: `#/components/schemas/${name}` });
