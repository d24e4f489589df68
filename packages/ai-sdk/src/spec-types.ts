import type { LanguageModelMiddleware } from 'ai';

/*
 * The language-model spec types, derived from the `ai` package's own `LanguageModelMiddleware`, so
 * this package's public types depend on `ai` alone (not on a second copy of `@ai-sdk/provider`).
 */
type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>;

export type CallOptions = Parameters<TransformParams>[0]['params'];
export type Prompt = CallOptions['prompt'];
export type PromptMessage = Prompt[number];
export type UserPromptMessage = Extract<PromptMessage, { role: 'user' }>;
export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
export type StreamResult = Awaited<ReturnType<WrapStream>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
export type ContentPart = GenerateResult['content'][number];
