// Preloaded with `node -r`: every server this process starts listens on 127.0.0.1 only, whatever host the
// emulator asks for (kinesalite has no host option and would bind all interfaces).
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string' && /^\d+$/.test(args[0])) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a === 'function');
    return listen.call(this, { port, host: '127.0.0.1' }, ...rest);
  }
  if (args[0] && typeof args[0] === 'object' && !Array.isArray(args[0])) {
    args[0] = Object.assign({}, args[0], { host: '127.0.0.1' });
  }
  return listen.apply(this, args);
};
