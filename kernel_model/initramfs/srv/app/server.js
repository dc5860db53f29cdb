const http = require('http');
http.createServer((q, r) => r.end('ok')).listen(3000);
