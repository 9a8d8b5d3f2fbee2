package dev.pulse.local.template;

/**
 * One {@code HttpApi} event of a function.
 *
 * @param functionId logical id of the function the route invokes
 * @param method     upper-case HTTP method, {@code ANY} when the event has none
 * @param path       the route's path, {@code $default} when the event has none (the catch-all route)
 * @param apiId      logical id of the API ({@code ApiId}), or {@code ServerlessHttpApi}, the API SAM creates for
 *                   events without one
 */
public record RouteSpec(String functionId, String method, String path, String apiId) {
}
